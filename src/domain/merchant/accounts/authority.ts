// The merchant's tax authority as the console shows it and its forms check it: the facts of its
// authority profile (letters and rates, payment types, note reasons, currency, the forms of its
// identifiers), served so that the console hard-codes none of them.
import { Type, type Static, type TString } from 'typebox';
import type { AuthorityProfile } from '../../../authorities/port/profile.ts';
import { authoritySalesTypes } from '../../../authorities/index.ts';
import { Nullable } from '../../../platform/http/schema-helpers.ts';

/** The receipt's words the console shows beside a document's fiscal information. */
const LABELS = [
  'fiscalBlock',
  'fiscalisedAt',
  'unitId',
  'unitNumber',
  'internalData',
  'signature',
  'invoiceNo',
  'receiptNo',
  'totalReceiptNo',
] as const;

const CodeLabel = Type.Object({ code: Type.String(), label: Type.String() });
const IdentifierForm = Type.Object({
  pattern: Type.String({ description: 'A regular expression its values match (for an HTML `pattern`)' }),
  words: Type.String({ description: 'Its form in words: `10 digits`' }),
  example: Type.String(),
});

export const MerchantAuthority = Type.Object(
  {
    authority: Type.String({ description: "The tenant's authority: `zra`, `kra`" }),
    name: Type.String({ description: 'For people: `Zambia Revenue Authority (Smart Invoice VSDC)`' }),
    country: Type.String({ description: "ISO 3166 alpha-2: a new item's default origin" }),
    currency: Type.String({ description: 'ISO 4217: the currency of its figures and of every report' }),
    foreignCurrencies: Type.Boolean({ description: 'Whether a document may be in another currency, with its exchange rate' }),
    timeZone: Type.String({ description: "IANA zone of the authority's dates" }),
    taxpayerId: Type.Object({
      ...IdentifierForm.properties,
      label: Type.String({ description: 'What its receipts call it: `TPIN`, `PIN`' }),
    }),
    branch: Type.Object({ ...IdentifierForm.properties, headquarters: Type.String() }),
    taxCategories: Type.Array(
      Type.Object({
        code: Type.String(),
        name: Type.String(),
        rate: Type.Number({ description: 'Percent' }),
        requires: Nullable(
          Type.String({ description: '`rrp`, `export` or `lpo`: what a line in it needs beyond the others; null: nothing' }),
        ),
      }),
      { description: "The letters a line's `vatCategory` takes, in the authority's order" },
    ),
    defaultTaxCategory: Type.String(),
    paymentMethods: Type.Array(CodeLabel),
    defaultPaymentMethod: Type.String(),
    creditNoteReasons: Type.Array(CodeLabel),
    debitNoteReasons: Nullable(Type.Array(CodeLabel, { description: 'Null: the authority has no debit notes' })),
    salesTypes: Type.Array(Type.String(), {
      description:
        'The document kinds its units file: `normal`, and `training` / `proforma` where one of them takes them (KRA: VSCU branches only; a branch whose unit does not is refused with a 422)',
    }),
    receiptTitles: Type.Record(Type.String(), Type.String(), {
      description:
        'What a receipt prints at its head, by document type (`sale`, `credit_note`, `debit_note`) or kind (`training`, `proforma`)',
    }),
    receiptLabels: Type.Object(Object.fromEntries(LABELS.map((key) => [key, Type.String()])) as Record<(typeof LABELS)[number], TString>, {
      description: 'The words its receipts print for what it gave a document: `SDC ID` / `SCU ID`, `Internal data`, …',
    }),
  },
  { description: "The merchant's tax authority: what its documents take and how its receipts word them" },
);
export type MerchantAuthorityResource = Static<typeof MerchantAuthority>;

const codeLabels = (list: AuthorityProfile['paymentMethods']) => list.map(({ code, label }) => ({ code, label }));

export function presentAuthority(profile: AuthorityProfile): MerchantAuthorityResource {
  return {
    authority: profile.authority,
    name: profile.name,
    country: profile.country,
    currency: profile.currency,
    foreignCurrencies: profile.foreignCurrencies,
    timeZone: profile.timeZone,
    taxpayerId: {
      pattern: profile.taxpayerId.pattern.source,
      words: profile.taxpayerId.words,
      example: profile.taxpayerId.example,
      label: profile.receiptLabels.taxpayerId,
    },
    branch: {
      pattern: profile.branch.pattern.source,
      words: profile.branch.words,
      example: profile.branch.example,
      headquarters: profile.branch.headquarters,
    },
    taxCategories: profile.taxCategories.map((c) => ({ code: c.code, name: c.name, rate: c.rate, requires: c.requires ?? null })),
    defaultTaxCategory: profile.defaultTaxCategory,
    paymentMethods: codeLabels(profile.paymentMethods),
    defaultPaymentMethod: profile.defaultPaymentMethod,
    creditNoteReasons: codeLabels(profile.creditNoteReasons),
    debitNoteReasons: profile.debitNoteReasons === null ? null : codeLabels(profile.debitNoteReasons),
    // Of all the authority's units: a VSCU branch takes training and proforma where OSCU does not.
    salesTypes: authoritySalesTypes(profile.authority),
    receiptTitles: { ...profile.receiptTitles },
    receiptLabels: Object.fromEntries(LABELS.map((key) => [key, profile.receiptLabels[key]])) as MerchantAuthorityResource['receiptLabels'],
  };
}
