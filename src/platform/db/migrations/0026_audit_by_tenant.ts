// The merchant's own audit trail (GET /api/v1/audit) lists a tenant's rows
// newest first (tenant_id = $1 order by id desc), optionally of one action or actions under a
// prefix. The only index was (partner_id, id): without this one every page scanned the log.
export const up = [`create index audit_log_tenant on audit_log(tenant_id, id)`];
