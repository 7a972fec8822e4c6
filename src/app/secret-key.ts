// The check of which key seals the database's secrets (src/credentials/secret-key.ts), with the
// sealed secrets the modules keep: partner keys (partner/provisioning) and webhook signing
// secrets (partner/webhooks). Run by `serve` (server.ts) and by every CLI command that opens a
// context (cli/with-context.ts) before they touch anything; a refusal is a ConfigError (exit 3).
import type { Kysely } from 'kysely';
import type { AppContext } from '../domain/kernel/context.ts';
import type { Config } from '../platform/config.ts';
import type { DB } from '../platform/db/schema.ts';
import { checkSecretKey, refuseNewDevelopmentKey, type SealedSecret, type SecretKeyOutcome } from '../credentials/secret-key.ts';
import { newestSealedPartnerKeys } from '../domain/partner/provisioning/partner-keys-service.ts';
import { newestSealedEndpointSecrets } from '../domain/partner/webhooks/service.ts';

/** How many of each kind's newest sealed secrets a database without a recorded key is tried with. */
const SAMPLE = 20;

const sealedSecrets = async (db: Kysely<DB>): Promise<SealedSecret[]> => [
  ...(await newestSealedPartnerKeys(db, SAMPLE)),
  ...(await newestSealedEndpointSecrets(db, SAMPLE)),
];

/** `claim`: the process seals secrets (`serve`, `partner create`), so it records its key when none is. */
export async function verifySecretKey(ctx: AppContext, command: string, options: { claim: boolean }): Promise<SecretKeyOutcome> {
  return checkSecretKey(ctx.db, ctx.secretBox, {
    command,
    claim: options.claim,
    dataDir: ctx.config.dataDir,
    usedDevelopmentKey: ctx.config.secretKey === undefined,
    sealedSecrets: () => sealedSecrets(ctx.db),
  });
}

/**
 * Before the context (which makes the development key file when there is none): without
 * SECRET_KEY, a database sealed by a key this directory has no file for stops the start or the
 * command with the file to copy, and no new key file is written (docs/deployment.md#secret_key).
 */
export async function verifyDevelopmentKeyFile(config: Config, db: Kysely<DB>, command: string): Promise<void> {
  if (config.secretKey !== undefined) return;
  await refuseNewDevelopmentKey(db, { command, dataDir: config.dataDir, sealedSecrets: () => sealedSecrets(db) });
}
