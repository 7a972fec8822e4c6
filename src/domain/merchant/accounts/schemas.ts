import { Type } from 'typebox';
import { literals, Nullable, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';
import { AuthorityName, TaxpayerId } from '../../kernel/tenants/schemas.ts';
import { UserVsdcRegistration } from '../../kernel/branch-users/schemas.ts';
import { PASSWORD_MAX } from './password-rules.ts';

const Email = Type.String({ format: 'email', maxLength: 254 });
// Length rules beyond 1…max are checked by the service, with a message saying what a good one is.
const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX * 4, description: 'At least 10 and at most 200 characters' });
const LinkToken = Type.String({ minLength: 1, maxLength: 200, description: 'The token of the one-time link (after `#token=`)' });
const Role = literals(['owner', 'admin', 'viewer'], {
  description: '`owner` and `admin` invite and remove users (only an owner invites or removes an owner); `viewer` reads',
});

export const SignUpBody = withExample(
  Type.Object({
    merchantName: Type.String({ minLength: 1, maxLength: 200 }),
    tpin: TaxpayerId,
    authority: Type.Optional(AuthorityName),
    email: Email,
    password: Password,
  }),
  {
    merchantName: 'Kabwe Hardware Limited',
    tpin: '2000000011',
    email: 'owner@kabwe-hardware.example',
    password: 'correct horse battery staple',
  },
);
export const TokenBody = withExample(Type.Object({ token: LinkToken }), { token: 'q3V0d2VyaWZ5LXRva2VuLWZyb20tdGhlLW1haWw' });
export const SignInBody = withExample(Type.Object({ email: Email, password: Password }), {
  email: 'owner@kabwe-hardware.example',
  password: 'correct horse battery staple',
});
export const ChangePasswordBody = withExample(Type.Object({ currentPassword: Password, newPassword: Password }), {
  currentPassword: 'correct horse battery staple',
  newPassword: 'another long passphrase',
});
export const ResetRequestBody = withExample(Type.Object({ email: Email }), { email: 'owner@kabwe-hardware.example' });
export const ResetConfirmBody = withExample(Type.Object({ token: LinkToken, newPassword: Password }), {
  token: 'cmVzZXQtdG9rZW4tZnJvbS10aGUtbWFpbA',
  newPassword: 'another long passphrase',
});
export const InviteBody = withExample(Type.Object({ email: Email, role: Role }), {
  email: 'cashier@kabwe-hardware.example',
  role: 'viewer',
});
export const AcceptInvitationBody = withExample(Type.Object({ token: LinkToken, password: Password }), {
  token: 'aW52aXRhdGlvbi10b2tlbi1mcm9tLXRoZS1tYWls',
  password: 'correct horse battery staple',
});
export const PartnerInviteBody = withExample(Type.Object({ email: Email }), { email: 'owner@example.com' });
export const UserParam = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });

export const Accepted = Type.Object({ message: Type.String() });
export const Verified = Type.Object({
  message: Type.String(),
  alreadyVerified: Type.Boolean({
    description:
      'True when the link had been used (or replaced, or had expired) and the address is confirmed already: nothing changed, sign in',
  }),
});

export const User = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  role: Role,
  emailVerified: Type.Boolean(),
  createdAt: Timestamp(),
});
/** A user as the Users list shows it: with its registration with the VSDC of each initialised branch. */
export const ListedUser = Type.Object({ ...User.properties, vsdcRegistration: UserVsdcRegistration });
const Merchant = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  tpin: Type.String(),
  origin: literals(['partner', 'self'], { description: '`self`: signed up by the merchant; `partner`: provisioned by a partner' }),
  status: literals(['active', 'suspended']),
  subscription: literals(['active', 'blocked']),
  timezone: Type.String({
    description: "IANA time zone of the merchant's days and of the times its receipts, reports and console show",
    examples: ['Africa/Lusaka'],
  }),
  standing: Type.Object(
    {
      canFile: Type.Boolean({
        description:
          'False while the subscription is blocked, the monthly quota is used up or the merchant is suspended, and while none of its branches is initialised',
      }),
      reason: Nullable(
        Type.String({
          description:
            'Why not: the message the merchant API answers (402/403, or 422 `no_device` / `branch_not_initialized`) to a filing, with what to do; null when it can file',
        }),
      ),
      cause: Nullable(
        Type.Enum(['account', 'no_branch'] as const, {
          description:
            '`account`: the subscription, quota or suspension (the operator or partner restores it); `no_branch`: no branch is initialised yet (register and initialise one: Devices); null when it can file',
        }),
      ),
    },
    { description: 'Whether the merchant may file now, and why not' },
  ),
});
export const Session = Type.Object({
  user: User,
  merchant: Merchant,
  csrfToken: Type.String({ description: 'Send it as `X-CSRF-Token` on every write made with the session cookie' }),
});
export const SignOutResult = Type.Object({ revokedSessions: Type.Integer() });
export const Invitation = Type.Object({ id: Type.Integer(), email: Type.String(), role: Role, expiresAt: Timestamp() });
export const PendingInvitation = Type.Object({ ...Invitation.properties, createdAt: Timestamp() });
export const RevokedInvitation = Type.Object({ revoked: Type.Literal(true), id: Type.Integer() });
export const PartnerInvitation = Type.Object({
  ...Invitation.properties,
  link: Type.String({ description: 'The one-time link (also mailed); shown once' }),
});
export const RemovedUser = Type.Object({ removed: Type.Literal(true), id: Type.Integer() });
export const OutboxMail = Type.Object({
  kind: Type.String(),
  to: Type.String(),
  from: Type.String(),
  subject: Type.String(),
  text: Type.String(),
  link: Type.Union([Type.String(), Type.Null()]),
  sentAt: Timestamp(),
});
