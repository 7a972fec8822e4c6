// What the merchant's views share: status words and tones, the merchant's branches.
import type { Api } from '../api.ts';
import { badge } from '../dom.ts';
import { calendarDate } from '../time.ts';
import type { Sale } from '../types.ts';

/**
 * The console's status filter: the API's statuses, a refused (`failed`) document split by whether
 * it was dealt with (its `resolution`); each with the list query it means.
 */
export const STATUS_FILTERS = {
  pending: { label: 'Pending (waiting to be filed)', query: { status: 'pending' } },
  uploaded: { label: 'Uploaded (fiscalised)', query: { status: 'uploaded' } },
  failed: { label: 'Failed, to deal with (refused by the authority)', query: { status: 'failed', resolved: false } },
  resolved: { label: 'Failed, resolved (reissued or marked resolved)', query: { status: 'failed', resolved: true } },
} as const satisfies Record<string, { label: string; query: { status: Sale['status']; resolved?: boolean } }>;
export type StatusFilter = keyof typeof STATUS_FILTERS;
export const isStatusFilter = (value: string): value is StatusFilter => Object.hasOwn(STATUS_FILTERS, value);

const TONES = { failed: 'danger', pending: 'warn', uploaded: 'ok' } as const;
export const TYPE_LABELS: Record<Sale['type'], string> = { sale: 'Sale', credit_note: 'Credit note', debit_note: 'Debit note' };

/** A document's status; a refused one since dealt with says so. */
export function statusBadge(status: Sale['status'], resolved: boolean): HTMLElement {
  const filter: StatusFilter = status === 'failed' && resolved ? 'resolved' : status;
  const element = resolved && status === 'failed' ? badge('failed · resolved', 'neutral') : badge(status, TONES[status]);
  element.title = STATUS_FILTERS[filter].label;
  return element;
}

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

/** Today (or `offsetDays` from it), YYYY-MM-DD, in the zone times are shown in (the merchant's, in its console). */
export function today(offsetDays = 0): string {
  return calendarDate(new Date(Date.now() + offsetDays * 86_400_000));
}
