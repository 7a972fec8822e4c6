// What a merchant account's password must be (hashing is src/credentials/passwords.ts).
import { fieldError } from '../../../platform/errors/errors.ts';

const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

/** The password rules (422 on `field`). */
export function assertPasswordRules(password: string, field: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN)
    throw fieldError(field, `The password must be at least ${PASSWORD_MIN} characters long; a few unrelated words make a good one.`);
  if (length > PASSWORD_MAX) throw fieldError(field, `The password must be at most ${PASSWORD_MAX} characters long.`);
  if (password.trim() === '') throw fieldError(field, 'The password must not be only spaces.');
}
