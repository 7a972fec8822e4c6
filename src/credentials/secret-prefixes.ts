// What each kind of secret starts with, and which kind a string claims to be by its prefix. No
// Node modules: the console imports it to recognise what was pasted into its sign-in form.

export const PREFIXES = {
  partnerLive: 'sk_live_',
  partnerTest: 'sk_test_',
  tenantToken: 'tt_',
  fiscalisationKey: 'pk_',
  webhookSecret: 'whsec_',
} as const;

type SecretKind = 'partner_key' | 'tenant_token' | 'fiscalisation_key';

/** Which credential a bearer/api-key string claims to be, by prefix (checksum checked later). */
export function kindOf(secret: string): { kind: SecretKind; prefix: string } | undefined {
  if (secret.startsWith(PREFIXES.partnerLive)) return { kind: 'partner_key', prefix: PREFIXES.partnerLive };
  if (secret.startsWith(PREFIXES.partnerTest)) return { kind: 'partner_key', prefix: PREFIXES.partnerTest };
  if (secret.startsWith(PREFIXES.tenantToken)) return { kind: 'tenant_token', prefix: PREFIXES.tenantToken };
  if (secret.startsWith(PREFIXES.fiscalisationKey)) return { kind: 'fiscalisation_key', prefix: PREFIXES.fiscalisationKey };
  return undefined;
}
