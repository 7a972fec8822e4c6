// What the merchant's views share: status words and tones, the merchant's branches.
import type { Api } from '../api.ts';
import { badge } from '../dom.ts';
import type { Sale } from '../types.ts';

export const STATUS_LABELS: Record<Sale['status'], string> = {
  pending: 'Pending (waiting to be filed)',
  uploaded: 'Uploaded (fiscalised)',
  failed: 'Failed (refused by the authority)',
  resolved: 'Resolved (refused, then dealt with)',
};
const TONES = { failed: 'danger', pending: 'warn', uploaded: 'ok', resolved: 'neutral' } as const;
export const TYPE_LABELS: Record<Sale['type'], string> = { sale: 'Sale', credit_note: 'Credit note', debit_note: 'Debit note' };

export const statusBadge = (status: Sale['status']) => badge(status, TONES[status]);

export interface Branch {
  branch: string;
  branchName: string | null;
  initialized: boolean;
}

/** The merchant's branches (its devices), from GET /api/v1/me; none when it cannot be read. */
export async function branchesOf(api: Api): Promise<Branch[]> {
  try {
    const me = await api.get<{ data: { devices: Branch[] } }>('/api/v1/me');
    return me.data.devices;
  } catch {
    return [];
  }
}

export const branchLabel = (b: Branch) => (b.branchName ? `${b.branch} ${b.branchName}` : b.branch);

/** Today in the viewer's zone, YYYY-MM-DD. */
export function today(offsetDays = 0): string {
  const d = new Date();
  d.setDate(d.getDate() + offsetDays);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
