import { Type, type Static } from 'typebox';
import { literals, Nullable } from '../../../platform/http/schema-helpers.ts';

const STATE_TEXT =
  '`registered`: the VSDC holds the user; `pending`: queued or the VSDC did not answer yet (retried with backoff); ' +
  '`failed`: the authority refused it (`resultCode`, `message`), until a later change queues it again';

const BranchRegistrationState = literals(['pending', 'registered', 'failed'], { description: STATE_TEXT });

/** A console user's registration with the VSDC of each initialised branch of its merchant. */
export const UserVsdcRegistration = Type.Object(
  {
    state: literals(['registered', 'pending', 'failed', 'none'], {
      description:
        'Over its branches: `failed` if one failed, else `pending` if one waits, else `registered`; `none` while the merchant has no initialised branch',
    }),
    branches: Type.Array(
      Type.Object({
        branch: Type.String({ description: 'The branch (bhfId)' }),
        state: BranchRegistrationState,
        resultCode: Nullable(Type.String({ description: "The authority's result code of the last answer" })),
        message: Nullable(Type.String({ description: "The authority's message when it refused" })),
      }),
    ),
  },
  { description: 'Registration with the VSDC (saveBrancheUser) as a user of each initialised branch' },
);
export type UserVsdcRegistration = Static<typeof UserVsdcRegistration>;

/** A till login's registration with the VSDC of its branch. */
export const TillLoginVsdcRegistration = Type.Object(
  {
    state: literals(['registered', 'pending', 'failed', 'none'], {
      description: `${STATE_TEXT}; \`none\`: its branch is not initialised yet (registered when it is)`,
    }),
    resultCode: Nullable(Type.String({ description: "The authority's result code of the last answer" })),
    message: Nullable(Type.String({ description: "The authority's message when it refused" })),
  },
  { description: 'Registration with the VSDC of its branch (saveBrancheUser)' },
);
export type TillLoginVsdcRegistration = Static<typeof TillLoginVsdcRegistration>;
