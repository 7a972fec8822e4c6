import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, literals } from '../../../platform/http/schema-helpers.ts';

const DAY = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';

const Filter = {
  action: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[a-z_]+(\\.[a-z_]*)?$',
      description:
        'one action (`token.revoked`), or a family of actions when it ends with a dot (`token.`: every token action; `sale.`: resolutions, reissues and reprints)',
      examples: ['token.'],
    }),
  ),
  from: Type.Optional(
    Type.String({
      pattern: DAY,
      description: "Recorded on or after this day (YYYY-MM-DD) in the merchant's timezone",
      examples: ['2026-01-01'],
    }),
  ),
  to: Type.Optional(
    Type.String({
      pattern: DAY,
      description: "Recorded on or before this day (YYYY-MM-DD, inclusive) in the merchant's timezone",
      examples: ['2026-01-31'],
    }),
  ),
};

export const ListAuditQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
  ...Filter,
});
export type ListAuditQuery = Static<typeof ListAuditQuery>;

export const ExportAuditQuery = Type.Object(Filter);
export type ExportAuditQuery = Static<typeof ExportAuditQuery>;

const ACTOR_TYPES = ['user', 'tenant_token', 'till_login', 'partner_key', 'admin', 'cli', 'anonymous'] as const;

export const AuditEntry = Type.Object({
  id: Type.Integer({ description: "The record's id; higher is later" }),
  action: Type.String({
    description:
      'What was done, `<family>.<verb>`: `token.created`, `item.updated`, `sale.resolved`, `report.closed`, … (docs/audit.md lists them)',
  }),
  actor: Type.Object({
    type: literals(ACTOR_TYPES, {
      description:
        "user: one of your users in the console; tenant_token: one of your tokens; till_login: a till login; partner_key: your partner's key; admin: the gateway's operator; cli: the operator's command line; anonymous: before sign-in (a sign-up, a failed sign-in, a reset)",
    }),
    id: Nullable(
      Type.String({ description: "The user's, token's, login's or key's id; null for the operator, the command line and anonymous" }),
    ),
    name: Nullable(
      Type.String({
        description:
          "What it is called: the user's email, the token's or key's name, the login's username; `operator` or `command line`; null once it is gone or for anonymous",
      }),
    ),
  }),
  target: Nullable(
    Type.Object({
      type: Type.String({
        description: 'tenant, user, user_invitation, tenant_token, api_key, till_login, device, item, sale, daily_report, reconciliation',
      }),
      id: Type.String(),
      name: Nullable(Type.String({ description: 'What the target is called now; null when it is gone or has no name' })),
    }),
  ),
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'What changed, as recorded with the action' }),
  at: Timestamp('When it was recorded'),
});
export type AuditEntryResource = Static<typeof AuditEntry>;
