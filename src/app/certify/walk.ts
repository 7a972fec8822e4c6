// The checklist's walk: every item done the way a merchant and its partner do it, through the
// gateway's own HTTP API and background workers (never by calling the VSDC directly). Each item's
// check either passes, with what it saw, or fails with why. The VSDC's side of an item (a customs
// line or a supplier's sale waiting for the merchant) is seeded through the simulator's control
// API when certify runs its own simulator; against a real VSDC it uses what is waiting there.
import { CHECKLIST_ITEMS } from './checklist.ts';
import { walkDocuments } from './walk-documents.ts';
import { walkGoods } from './walk-goods.ts';
import { walkRecords } from './walk-records.ts';
import { walkSession, type ItemResult, type WalkDevice, type WalkSettings } from './walk-session.ts';
import { walkDeviceAndUsers } from './walk-setup.ts';

export interface WalkOutcome {
  results: ItemResult[];
  /** What the run learned about the device (sdcId, mrcNo), for the report. */
  device: WalkDevice;
}

/** Runs the sections in order: each item's `needs` are items of its own section or an earlier one. */
export async function walkChecklist(settings: WalkSettings): Promise<WalkOutcome> {
  const device: WalkDevice = { sdcId: null, mrcNo: null, tenantId: null, taxpayerName: null };
  const session = walkSession(settings);
  const walk = { session, settings, device };
  await walkDeviceAndUsers(walk);
  const stamp = Date.now().toString(36).toUpperCase();
  const codes = { stamp, product: `CERT-${stamp}-P`, part: `CERT-${stamp}-C` };
  await walkGoods(walk, codes);
  await walkDocuments(walk, codes);
  await walkRecords(walk);
  return {
    results: CHECKLIST_ITEMS.map((i) => session.results.get(i.no) ?? { no: i.no, ok: false, notes: [], why: 'not run', calls: [], ms: 0 }),
    device,
  };
}
