// Who issued a document (the resource's `issuedBy`), as the merchant's, partner's and operator's
// document views write it.
import type { Sale } from '../types.ts';

type IssuedBy = Sale['issuedBy'];

const KINDS: Record<NonNullable<IssuedBy>['type'], string> = {
  user: 'user',
  tenant_token: 'token',
  till_login: 'till login',
  fiscalisation_key: 'fiscalisation key',
  partner_key: 'partner key',
};

/** `alice@example.com (user)`, `Till 3 (till login)`; by kind and id once the credential is gone. */
export function issuerText(issuedBy: IssuedBy): string {
  if (!issuedBy) return 'Not recorded (stored before the gateway recorded who issued documents)';
  const kind = KINDS[issuedBy.type];
  return issuedBy.name ? `${issuedBy.name} (${kind})` : `${kind} #${issuedBy.id}`;
}
