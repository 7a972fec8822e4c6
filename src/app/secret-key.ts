// The check of which key seals the database's secrets (src/credentials/secret-key.ts), with the
// sealed secrets the modules keep: partner keys (partner/provisioning) and webhook signing
// secrets (partner/webhooks). Run by `serve` (server.ts) and by every CLI command that opens a
// context (cli/with-context.ts) before they touch anything; a refusal is a ConfigError (exit 3).
import type { AppContext } from '../domain/kernel/context.ts';
import { checkSecretKey, type SecretKeyOutcome } from '../credentials/secret-key.ts';
import { newestSealedPartnerKeys } from '../domain/partner/provisioning/partner-keys-service.ts';
import { newestSealedEndpointSecrets } from '../domain/partner/webhooks/service.ts';

/** How many of each kind's newest sealed secrets a database without a recorded key is tried with. */
const SAMPLE = 20;

/** `claim`: the process seals secrets (`serve`, `partner create`), so it records its key when none is. */
export async function verifySecretKey(ctx: AppContext, command: string, options: { claim: boolean }): Promise<SecretKeyOutcome> {
  return checkSecretKey(ctx.db, ctx.secretBox, {
    command,
    claim: options.claim,
    dataDir: ctx.config.dataDir,
    usedDevelopmentKey: ctx.config.secretKey === undefined,
    sealedSecrets: async () => [...(await newestSealedPartnerKeys(ctx.db, SAMPLE)), ...(await newestSealedEndpointSecrets(ctx.db, SAMPLE))],
  });
}
