// What the registry's profiles say about merchants and devices, for validation and display: the
// authorities a merchant may file with, the protocols of each, the forms of their identifiers.
// Everything here is read from AUTHORITY_PROFILES: an authority added to the registry needs no
// change here.
import { AUTHORITY_PROFILES, merchantProfile } from '../../../authorities/index.ts';
import type { AuthorityProfile } from '../../../authorities/port/profile.ts';

const PROFILES: readonly AuthorityProfile[] = Object.values(AUTHORITY_PROFILES);

/** The authorities a merchant may file with (`zra`, …), in the registry's order. */
export const MERCHANT_AUTHORITIES: readonly string[] = [...new Set(PROFILES.map((p) => p.authority))];

/** The authority of a merchant created without one. */
export const DEFAULT_AUTHORITY = 'zra';

/** Whether the registry has a profile for the authority (a tenant row's may be one this build lacks). */
export function knowsAuthority(authority: string): boolean {
  return MERCHANT_AUTHORITIES.includes(authority);
}

/** The protocols a device of a merchant of `authority` may speak, the default first. */
export function protocolsOf(authority: string): string[] {
  return PROFILES.filter((p) => p.authority === authority).map((p) => p.protocol);
}

/** The headquarters branch of every authority (`000`, `00`): no tenant can have two, since each takes one form only. */
export const HEADQUARTERS: readonly string[] = [...new Set(PROFILES.map((p) => p.branch.headquarters))];

/** A pattern any authority's branch id matches (the schemas' form; the merchant's own is checked by profile). */
export const ANY_BRANCH_PATTERN = anyOf([...new Set(PROFILES.map((p) => p.branch.pattern.source))]);

function anyOf(patterns: readonly string[]): string {
  return patterns.length === 1 ? patterns[0]! : `^(?:${patterns.map((p) => p.replace(/^\^/, '').replace(/\$$/, '')).join('|')})$`;
}

/** The branch forms in words, for descriptions: `ZRA: 3 digits (000 headquarters)`. */
export const BRANCH_FORMS = [
  ...new Map(
    PROFILES.map((p) => [p.authority, `${p.authority.toUpperCase()}: ${p.branch.words} (${p.branch.headquarters} the headquarters)`]),
  ).values(),
].join('; ');

/** The taxpayer id forms in words, for descriptions. */
export const TAXPAYER_ID_FORMS = [
  ...new Map(
    PROFILES.map((p) => [p.authority, `${p.authority.toUpperCase()}: ${p.taxpayerId.words}, e.g. ${p.taxpayerId.example}`]),
  ).values(),
].join('; ');

/** `a, b or c`. */
export function oneOf(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

/** The refusal of a taxpayer id not of the authority's form, or null when it is. */
export function taxpayerIdProblem(field: string, authority: string, value: string): string | null {
  const profile = merchantProfile(authority);
  if (profile.taxpayerId.pattern.test(value)) return null;
  return `The ${field} field must be a ${profile.authority.toUpperCase()} taxpayer id: ${profile.taxpayerId.words}, e.g. ${profile.taxpayerId.example}.`;
}

/** The refusal of a branch id not of the authority's form, or null when it is. */
export function branchProblem(field: string, authority: string, value: string): string | null {
  const profile = merchantProfile(authority);
  if (profile.branch.pattern.test(value)) return null;
  return `The ${field} field must be a ${profile.authority.toUpperCase()} branch id: ${profile.branch.words}, e.g. ${profile.branch.example} (${profile.branch.headquarters} is the headquarters).`;
}

/** A counterparty's taxpayer id (a customer's, a supplier's) in the merchant's authority's form: the sales' sentence. */
export function checkCounterpartyTaxpayerId(
  errors: { add(field: string, message: string): void },
  field: string,
  authority: string,
  value: unknown,
): void {
  if (typeof value !== 'string' || !knowsAuthority(authority)) return;
  const { taxpayerId } = merchantProfile(authority);
  if (!taxpayerId.pattern.test(value))
    errors.add(field, `The ${field} field must be ${taxpayerId.words}, e.g. ${taxpayerId.example}, or null.`);
}

/**
 * The authority whose taxpayer-id form `tpin` has: a document row keeps its merchant's id, and the
 * authorities' forms are disjoint (ZRA 10 digits, KRA a letter, 9 digits, a letter), so the row
 * names its authority without a join. The default authority when no form matches.
 */
export function authorityOfTaxpayerId(tpin: string): string {
  return PROFILES.find((p) => p.taxpayerId.pattern.test(tpin))?.authority ?? DEFAULT_AUTHORITY;
}
