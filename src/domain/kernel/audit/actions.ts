// Every action the audit trail records, by family (`<family>.<verb>`): what `recordAudit` accepts,
// and what the consoles' action filters offer. docs/audit.md describes them.

interface AuditFamily {
  /** The family's filter value: the actions starting with it. */
  prefix: string;
  label: string;
  /** Whether its records concern one merchant, so its own audit trail (GET /api/v1/audit) holds them. */
  merchantTrail: boolean;
  actions: readonly string[];
}

export const AUDIT_FAMILIES = [
  { prefix: 'token.', label: 'Tokens', merchantTrail: true, actions: ['token.created', 'token.revoked'] },
  { prefix: 'api_key.', label: 'Fiscalisation keys', merchantTrail: true, actions: ['api_key.created', 'api_key.revoked'] },
  { prefix: 'till_login.', label: 'Till logins', merchantTrail: true, actions: ['till_login.created', 'till_login.deleted'] },
  {
    prefix: 'account.',
    label: 'Users and sign-ins',
    merchantTrail: true,
    actions: [
      'account.signup',
      'account.signup_existing',
      'account.email_verified',
      'account.verification_resent',
      'account.signin',
      'account.signin_failed',
      'account.signout',
      'account.signout_everywhere',
      'account.password_changed',
      'account.password_reset_requested',
      'account.password_reset',
      'account.invitation_created',
      'account.invitation_accepted',
      'account.invitation_revoked',
      'account.user_removed',
    ],
  },
  {
    prefix: 'device.',
    label: 'Devices',
    merchantTrail: true,
    actions: ['device.registered', 'device.updated', 'device.removed', 'device.initialized'],
  },
  {
    prefix: 'item.',
    label: 'Items',
    merchantTrail: true,
    actions: ['item.created', 'item.updated', 'item.released', 'item.composition_set'],
  },
  {
    prefix: 'sale.',
    label: 'Documents (credit, debit, resolve, reissue, reprint)',
    merchantTrail: true,
    actions: ['sale.credited', 'sale.debited', 'sale.resolved', 'sale.reissued', 'sale.reprinted'],
  },
  { prefix: 'report.', label: 'Reports (Z)', merchantTrail: true, actions: ['report.closed'] },
  { prefix: 'reconciliation.', label: 'Reconciliations', merchantTrail: true, actions: ['reconciliation.started'] },
  { prefix: 'purchase.', label: 'Purchases', merchantTrail: true, actions: ['purchase.captured'] },
  {
    prefix: 'tenant.',
    label: 'Merchant settings',
    merchantTrail: true,
    actions: ['tenant.created', 'tenant.updated', 'tenant.account_updated'],
  },
  { prefix: 'partner.', label: 'Partners', merchantTrail: false, actions: ['partner.created', 'partner.suspended', 'partner.resumed'] },
  {
    prefix: 'partner_key.',
    label: 'Partner keys',
    merchantTrail: false,
    actions: ['partner_key.created', 'partner_key.rotated', 'partner_key.revoked', 'partner_key.secret_read'],
  },
  {
    prefix: 'webhook_endpoint.',
    label: 'Webhook endpoints',
    merchantTrail: false,
    actions: ['webhook_endpoint.created', 'webhook_endpoint.enabled', 'webhook_endpoint.deleted'],
  },
  { prefix: 'webhook_delivery.', label: 'Webhook deliveries', merchantTrail: false, actions: ['webhook_delivery.resent'] },
  { prefix: 'database.', label: 'Database', merchantTrail: false, actions: ['database.backed_up'] },
] as const satisfies readonly AuditFamily[];

export type AuditAction = (typeof AUDIT_FAMILIES)[number]['actions'][number];
