// Till logins: provisioned by the merchant's partner, used by a till's getactive to obtain a
// fresh fiscalisation key for its branch. Passwords are scrypt-hashed; plaintext is shown once.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../kernel/context.ts';
import type { TenantAccount } from '../../../credentials/lookup.ts';
import { assertTenantInGoodStanding, currentMonth } from '../../../credentials/standing.ts';
import { decoyHash, hashPassword, verifyPassword } from '../../../credentials/passwords.ts';
import { isUniqueViolation } from '../../../platform/db/database.ts';
import { ApiError, NotFoundError, fieldError, unauthenticated } from '../../../platform/errors/errors.ts';
import type { Actor } from '../../kernel/audit/store.ts';
import { registrationsOfTillLogins } from '../../kernel/branch-users/store.ts';
import type { TenantRow } from '../../kernel/tenants/store.ts';
import { presentTillLogin } from './present.ts';
import type { GetActiveAnswer, GetActiveBody } from './schemas.ts';
import type { CreateTillLoginBody, TillLoginResource } from './till-login-schemas.ts';
import {
  deleteTillLoginRow,
  findDeviceOfBranch,
  findLoginCandidates,
  findTillLoginRow,
  insertTillLogin,
  listTillLoginRows,
  swapTillKey,
  type Dialect,
  type LoginCandidate,
} from './till-login-store.ts';
import { toLegacyBranch } from './translate.ts';

/** scrypt's N = 2^14 for till logins' passwords (merchant accounts' cost is in the configuration). */
const TILL_PASSWORD_LOG2N = 14;

/** A password chosen for the login: 18 random bytes, 24 base64url characters (144 bits). */
function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

export async function listTillLogins(ctx: AppContext, tenant: TenantRow): Promise<TillLoginResource[]> {
  const rows = await listTillLoginRows(ctx.db, tenant.id);
  const registered = await registrationsOfTillLogins(
    ctx.db,
    tenant.id,
    rows.map((r) => r.id),
  );
  return rows.map((row) => presentTillLogin(row, registered.get(row.id)));
}

export async function createTillLogin(
  ctx: AppContext,
  actor: Actor,
  tenant: TenantRow,
  body: CreateTillLoginBody,
): Promise<TillLoginResource & { password?: string }> {
  const device = await findDeviceOfBranch(ctx.db, tenant.id, body.branch);
  if (!device) throw new ApiError('device_not_found', `No device is registered for branch ${body.branch} of this merchant.`);
  const generated = body.password === undefined ? generatePassword() : undefined;
  const passwordHash = await hashPassword(body.password ?? generated!, TILL_PASSWORD_LOG2N);
  let id: number;
  try {
    id = await insertTillLogin(ctx.db, actor, {
      tenantId: tenant.id,
      deviceId: device.id,
      username: body.username,
      passwordHash,
      dialect: body.dialect ?? 'bare',
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw fieldError('username', 'This merchant already has a till login with that username.');
    throw err;
  }
  const registered = await registrationsOfTillLogins(ctx.db, tenant.id, [id]);
  const login = presentTillLogin((await findTillLoginRow(ctx.db, tenant.id, id))!, registered.get(id));
  return generated === undefined ? login : { ...login, password: generated };
}

export async function deleteTillLogin(
  ctx: AppContext,
  actor: Actor,
  tenant: TenantRow,
  id: number,
): Promise<{ deleted: boolean; id: number }> {
  const result = await deleteTillLoginRow(ctx.db, actor, tenant.id, id);
  if (!result) throw new NotFoundError('Till login not found.');
  return { deleted: result.deleted, id };
}

/** What getactive needs from the HTTP layer once it knows whose login it is. */
interface LoginGate {
  /** Counts the attempt against the merchant's /zm/api rate limit (429 when over). */
  countAttempt(tenant: TenantAccount): Promise<void>;
  /** The login is proven: answer from here on in its dialect. */
  identified(dialect: Dialect): void;
}

/** Checks the password against every candidate (no early exit); the oldest matching login wins. */
async function matchingLogin(candidates: LoginCandidate[], password: string): Promise<LoginCandidate | undefined> {
  if (candidates.length === 0) {
    await verifyPassword(password, await decoyHash(TILL_PASSWORD_LOG2N));
    return undefined;
  }
  const verdicts = await Promise.all(candidates.map((c) => verifyPassword(password, c.passwordHash)));
  return candidates.find((_, i) => verdicts[i]);
}

/**
 * POST /api/ApiKey/getactive: a wrong login is 401 (and still counts against the merchant's rate
 * limit, which bounds password guessing); a proven one passes the account checks (402) and the
 * rate limit (429), then gets a new branch key — the login's previous till key is revoked.
 */
export async function getActiveKey(ctx: AppContext, body: GetActiveBody, gate: LoginGate): Promise<GetActiveAnswer> {
  const candidates = await findLoginCandidates(ctx.db, body.Tpin, body.Username, currentMonth(ctx.clock.now()));
  const login = await matchingLogin(candidates, body.Password);
  const wrongLogin = () => unauthenticated('The Tpin, Username or Password is wrong.');
  if (!login) {
    const tenants = new Map(candidates.map((c) => [c.tenant.id, c.tenant]));
    for (const tenant of tenants.values()) await gate.countAttempt(tenant);
    throw wrongLogin();
  }
  gate.identified(login.dialect);
  assertTenantInGoodStanding(login.tenant);
  await gate.countAttempt(login.tenant);
  const { device } = login;
  if (!device.initialized || device.sdcId === null) {
    throw new ApiError(
      'branch_not_initialized',
      `Branch ${device.branch} is not initialised with the authority yet, so no key is issued. Its partner must initialise the device first.`,
    );
  }
  const apiKey = await swapTillKey(ctx.db, login.loginId, login.tenant.partnerId);
  if (apiKey === undefined) throw wrongLogin();
  return {
    ApiKey: apiKey,
    SdcId: device.sdcId,
    Branches: [toLegacyBranch({ branch: device.branch, sdcId: device.sdcId, name: device.name, initialized: device.initialized })],
  };
}
