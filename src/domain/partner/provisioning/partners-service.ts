import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { SecretBox } from '../../../credentials/secret-box.ts';
import { SCOPES, type Scope } from '../../../credentials/abilities.ts';
import { NotFoundError, requiredText } from '../../../platform/errors/errors.ts';
import { recordAudit, type Actor } from '../../kernel/audit/store.ts';
import { insertPartnerKey } from './partner-keys-service.ts';
import { tenantWithDevices } from '../../kernel/tenants/service.ts';
import { presentPartner, presentPartnerKey, type PartnerKeyResource, type PartnerResource } from './present.ts';
import { insertPartner, listPartnerRows, updatePartnerStatus } from './store.ts';
import { updateTenantAccountRow, type TenantAccountPatch } from '../../kernel/tenants/store.ts';

export type { TenantAccountPatch };

// Operator actions (admin API and CLI): partners and the account state of tenants.

export async function createPartner(
  db: Kysely<DB>,
  box: SecretBox,
  actor: Actor,
  input: { name: string; test?: boolean; scopes?: Scope[] },
): Promise<{ partner: PartnerResource; key: PartnerKeyResource & { secret: string } }> {
  const name = requiredText(input.name, 'name');
  return db.transaction().execute(async (trx) => {
    const partner = await insertPartner(trx, name);
    const scopes = SCOPES.filter((s) => !input.scopes || input.scopes.includes(s));
    const { row, secret } = await insertPartnerKey(trx, box, partner.id, {
      name: 'Initial key',
      mode: input.test ? 'test' : 'live',
      scopes,
    });
    await recordAudit(trx, {
      actor,
      action: 'partner.created',
      partnerId: partner.id,
      targetType: 'partner',
      targetId: partner.id,
      details: { name: partner.name, keyId: row.id },
    });
    return {
      partner: presentPartner(partner),
      key: { ...presentPartnerKey(row), secret },
    };
  });
}

export async function setPartnerStatus(
  db: Kysely<DB>,
  actor: Actor,
  partnerId: number,
  status: 'active' | 'suspended',
): Promise<PartnerResource> {
  return db.transaction().execute(async (trx) => {
    const row = await updatePartnerStatus(trx, partnerId, status);
    if (!row) throw new NotFoundError('Partner not found.');
    await recordAudit(trx, {
      actor,
      action: status === 'suspended' ? 'partner.suspended' : 'partner.resumed',
      partnerId,
      targetType: 'partner',
      targetId: partnerId,
    });
    return presentPartner(row);
  });
}

export async function listPartners(db: Kysely<DB>): Promise<PartnerResource[]> {
  const rows = await listPartnerRows(db);
  return rows.map(presentPartner);
}

export async function updateTenantAccount(db: Kysely<DB>, actor: Actor, tenantId: number, patch: TenantAccountPatch) {
  return db.transaction().execute(async (trx) => {
    const row = await updateTenantAccountRow(trx, tenantId, patch);
    if (!row) throw new NotFoundError('Tenant not found.');
    await recordAudit(trx, {
      actor,
      action: 'tenant.account_updated',
      partnerId: row.partner_id,
      tenantId,
      targetType: 'tenant',
      targetId: tenantId,
      details: { ...patch },
    });
    return tenantWithDevices(trx, row);
  });
}
