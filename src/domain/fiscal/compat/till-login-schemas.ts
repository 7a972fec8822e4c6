// The partner's till logins (`/api/v1/tenants/{tenant}/till-logins`): what a legacy till signs in
// with to get its fiscalisation key (getactive).
import { Type, type Static } from 'typebox';
import { Nullable, literals, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';
import { TillLoginVsdcRegistration } from '../../kernel/branch-users/schemas.ts';

const Dialect = literals(['bare', 'wrapped']);

export const CreateTillLoginBody = withExample(
  Type.Object({
    username: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[\\x21-\\x7E]+$',
      description: 'Printable ASCII without spaces; unique per merchant, compared without case',
    }),
    branch: Type.String({ pattern: '^[0-9]{3}$', description: 'The branch (bhfId) the till files through' }),
    password: Type.Optional(
      Type.String({ minLength: 12, maxLength: 256, description: 'At least 12 characters; omit it to have one generated and shown once' }),
    ),
    dialect: Type.Optional(Dialect),
  }),
  { username: 'till-01', branch: '000', password: 'change-me-till-01', dialect: 'bare' },
);
export type CreateTillLoginBody = Static<typeof CreateTillLoginBody>;

export const TillLogin = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  branch: Type.String(),
  sdcId: Nullable(Type.String()),
  dialect: Dialect,
  activeKeyId: Nullable(Type.Integer({ description: 'The fiscalisation key the last getactive issued, while it is not revoked' })),
  createdAt: Timestamp(),
  lastLoginAt: Nullable(Timestamp()),
  vsdcRegistration: TillLoginVsdcRegistration,
});
export type TillLoginResource = Static<typeof TillLogin>;

export const TillLoginCreated = Type.Object({
  ...TillLogin.properties,
  password: Type.Optional(Type.String({ description: 'The generated password, shown once; absent when you chose it' })),
});

export const TillLoginDeleted = Type.Object({ deleted: Type.Boolean(), id: Type.Integer() });
