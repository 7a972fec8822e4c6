// The text of every mail the gateway sends. Each carries at most one link.

type MailKind = 'verify_email' | 'account_exists' | 'password_reset' | 'invitation' | 'password_changed';

export interface MailMessage {
  kind: MailKind;
  subject: string;
  text: string;
  /** The one-time link the mail carries, if any. */
  link: string | null;
}

const signature = '\n\n— Fiscal Gateway\n';

export function verifyEmailMail(merchantName: string, link: string): MailMessage {
  return {
    kind: 'verify_email',
    subject: 'Confirm your email address',
    text: `Welcome! Confirm your email address to sign in to ${merchantName}'s account:\n\n${link}\n\nThe link works once, for 24 hours. If you did not sign up, ignore this mail.${signature}`,
    link,
  };
}

export function accountExistsMail(resetLink: string): MailMessage {
  return {
    kind: 'account_exists',
    subject: 'You already have an account',
    text: `Someone (perhaps you) tried to sign up with this email address, but it already has an account. Sign in instead, or if you forgot your password, reset it:\n\n${resetLink}\n\nThe link works once, for 1 hour. If it was not you, ignore this mail.${signature}`,
    link: resetLink,
  };
}

export function passwordResetMail(link: string): MailMessage {
  return {
    kind: 'password_reset',
    subject: 'Reset your password',
    text: `Choose a new password here:\n\n${link}\n\nThe link works once, for 1 hour. If you did not ask for it, ignore this mail: your password stays as it is.${signature}`,
    link,
  };
}

export function invitationMail(merchantName: string, role: string, link: string, validHours: number): MailMessage {
  return {
    kind: 'invitation',
    subject: `You are invited to ${merchantName} on Fiscal Gateway`,
    text: `You are invited to join ${merchantName} as ${role}. Choose your password here:\n\n${link}\n\nThe link works once, for ${validHours} hours.${signature}`,
    link,
  };
}

export function passwordChangedMail(): MailMessage {
  return {
    kind: 'password_changed',
    subject: 'Your password was changed',
    text: `The password of your account was changed and every other session was signed out. If it was not you, reset your password now.${signature}`,
    link: null,
  };
}
