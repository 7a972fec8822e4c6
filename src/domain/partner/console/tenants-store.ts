// The operator's list of merchants with their account state, usage and backlog.
import { sql, type Kysely, type Selectable } from 'kysely';
import { currentMonth } from '../../../credentials/standing.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { TenantsTable } from '../../../platform/db/tables/foundation.ts';
import { offsetOf, pageOf, PER_PAGE, type Page } from '../../../platform/http/pagination.ts';
import { authorityBranchesFor } from '../../kernel/devices/register.ts';
import { presentTenant } from '../../kernel/tenants/present.ts';
import type { TenantRow } from '../../kernel/tenants/store.ts';
import { devicesOf } from '../../kernel/devices/store.ts';
import type { TenantResource } from '../../kernel/tenants/schemas.ts';

interface AdminTenantResource extends TenantResource {
  partnerId: number | null;
  partnerName: string | null;
  /** `partner`: provisioned by a partner; `self`: signed up by the merchant (docs/merchants.md). */
  origin: 'partner' | 'self';
  documentsThisMonth: number;
  pending: number;
  failed: number;
}

type Row = Selectable<TenantsTable> & { partner_name: string | null; documents_this_month: number; pending: number; failed: number };

interface AdminTenantFilter {
  partnerId?: number;
  status?: 'active' | 'suspended';
  subscription?: 'active' | 'blocked';
  page: number;
}

export async function listAdminTenants(db: Kysely<DB>, filter: AdminTenantFilter, now: Date): Promise<Page<AdminTenantResource>> {
  const where = sql`where true
    ${filter.partnerId === undefined ? sql`` : sql` and t.partner_id = ${filter.partnerId}`}
    ${filter.status === undefined ? sql`` : sql` and t.status = ${filter.status}`}
    ${filter.subscription === undefined ? sql`` : sql` and t.subscription = ${filter.subscription}`}`;
  const rows = await sql<Row>`
    select t.*, p.name as partner_name, coalesce(u.documents, 0)::int as documents_this_month,
      (select count(*)::int from sales s join devices d on d.id = s.device_id where d.tenant_id = t.id and s.status = 'pending') as pending,
      (select count(*)::int from sales s join devices d on d.id = s.device_id where d.tenant_id = t.id and s.status = 'failed') as failed
    from tenants t
    left join partners p on p.id = t.partner_id
    left join tenant_usage u on u.tenant_id = t.id and u.month = ${currentMonth(now)}
    ${where}
    order by t.id
    limit ${PER_PAGE} offset ${offsetOf(filter.page)}`.execute(db);
  const count = await sql<{ n: number }>`select count(*)::int as n from tenants t ${where}`.execute(db);
  const devices = await devicesOf(
    db,
    rows.rows.map((r) => r.id),
  );
  const branches = await authorityBranchesFor(db, new Map(rows.rows.map((r) => [r.id, (devices.get(r.id) ?? []).map((d) => d.branch)])));
  const data = rows.rows.map((r) => {
    const { partner_name, documents_this_month, pending, failed, ...tenant } = r;
    return {
      ...presentTenant(
        { ...tenant, created_at: new Date(tenant.created_at), updated_at: new Date(tenant.updated_at) } as TenantRow,
        devices.get(r.id) ?? [],
        branches.get(r.id) ?? [],
      ),
      partnerId: tenant.partner_id,
      partnerName: partner_name,
      origin: tenant.origin,
      documentsThisMonth: Number(documents_this_month),
      pending: Number(pending),
      failed: Number(failed),
    };
  });
  return pageOf(data, Number(count.rows[0]?.n ?? 0), filter.page);
}
