// A removed device keeps the names in its audit trail. Removing a device deleted the branch's
// already-deleted till logins with it, so the audit rows naming one as actor lost its username.
// A deleted till login now stays, with no device (as a revoked fiscalisation key already did);
// a live login always has its device.
export const up = [
  `alter table till_logins alter column device_id drop not null`,
  `alter table till_logins add constraint till_logins_live_have_device check (deleted_at is not null or device_id is not null)`,
];
