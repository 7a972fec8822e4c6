// The text of every mail the gateway sends. Each carries at most one link, and says until when it
// works: a mail may leave the outbox later than it was written (an SMTP outage), so "for 1 hour"
// alone could be wrong by the time it is read.

type MailKind = 'verify_email' | 'account_exists' | 'password_reset' | 'invitation' | 'password_changed';

export interface MailMessage {
  kind: MailKind;
  subject: string;
  text: string;
  /** The one-time link the mail carries, if any. */
  link: string | null;
  /** When that link stops working: a mail is not sent past it (src/domain/kernel/mail/). */
  linkExpiresAt: Date | null;
}

const signature = '\n\n— Fiscal Gateway\n';

/** `for 1 hour (until 2026-12-03 14:05 UTC)`. */
function validity(words: string, expiresAt: Date): string {
  return `for ${words} (until ${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)`;
}

export function verifyEmailMail(merchantName: string, link: string, expiresAt: Date): MailMessage {
  return {
    kind: 'verify_email',
    subject: 'Confirm your email address',
    text: `Welcome! Confirm your email address to sign in to ${merchantName}'s account:\n\n${link}\n\nThe link works once, ${validity('24 hours', expiresAt)}. If you did not sign up, ignore this mail.${signature}`,
    link,
    linkExpiresAt: expiresAt,
  };
}

export function accountExistsMail(resetLink: string, expiresAt: Date): MailMessage {
  return {
    kind: 'account_exists',
    subject: 'You already have an account',
    text: `Someone (perhaps you) tried to sign up with this email address, but it already has an account. Sign in instead, or if you forgot your password, reset it:\n\n${resetLink}\n\nThe link works once, ${validity('1 hour', expiresAt)}. If it was not you, ignore this mail.${signature}`,
    link: resetLink,
    linkExpiresAt: expiresAt,
  };
}

export function passwordResetMail(link: string, expiresAt: Date): MailMessage {
  return {
    kind: 'password_reset',
    subject: 'Reset your password',
    text: `Choose a new password here:\n\n${link}\n\nThe link works once, ${validity('1 hour', expiresAt)}. If you did not ask for it, ignore this mail: your password stays as it is.${signature}`,
    link,
    linkExpiresAt: expiresAt,
  };
}

export function invitationMail(merchantName: string, role: string, link: string, validHours: number, expiresAt: Date): MailMessage {
  return {
    kind: 'invitation',
    subject: `You are invited to ${merchantName} on Fiscal Gateway`,
    text: `You are invited to join ${merchantName} as ${role}. Choose your password here:\n\n${link}\n\nThe link works once, ${validity(`${validHours} hours`, expiresAt)}.${signature}`,
    link,
    linkExpiresAt: expiresAt,
  };
}

export function passwordChangedMail(): MailMessage {
  return {
    kind: 'password_changed',
    subject: 'Your password was changed',
    text: `The password of your account was changed and every other session was signed out. If it was not you, reset your password now.${signature}`,
    link: null,
    linkExpiresAt: null,
  };
}
