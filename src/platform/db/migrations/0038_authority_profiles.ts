// The authority seam: a merchant's authority and a device's protocol pick the adapter that
// speaks for the device (src/authorities/index.ts). Every merchant so far is Zambian, every device
// a VSDC.
export const up = [
  `alter table tenants add column authority text not null default 'zra' check (authority in ('zra'))`,
  `alter table devices add column protocol text not null default 'vsdc' check (protocol in ('vsdc'))`,
];
