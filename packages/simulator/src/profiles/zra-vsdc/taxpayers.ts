// The authority's taxpayer register as `selectCustomer` sees it.

import type { Taxpayer } from '../../core/store.js';

export type { Taxpayer };

/** TPINs `selectCustomer` knows out of the box; any other TPIN answers `001`. */
export const KNOWN_TAXPAYERS: readonly Taxpayer[] = [
  { tpin: '2000000001', name: 'Lusaka Trading Limited', address: 'Plot 1021, Cairo Road, Lusaka' },
  { tpin: '2000000002', name: 'Copperbelt Mining Supplies Limited', address: 'President Avenue, Kitwe' },
  { tpin: '2000000003', name: 'Zambezi Agro Dealers', address: 'Mosi-oa-Tunya Road, Livingstone' },
  { tpin: '2000000004', name: 'Kafue Fisheries Cooperative', address: 'Kafue Road, Kafue' },
  { tpin: '2000000005', name: 'Chipata Hardware and General Dealers', address: 'Umodzi Highway, Chipata' },
  { tpin: '2000000006', name: 'Ndola Pharmaceuticals Limited', address: 'Broadway, Ndola' },
];
