export const SCOPES = ['tenants:read', 'tenants:write', 'devices:write', 'keys:write', 'webhooks:read', 'webhooks:write'] as const;
export type Scope = (typeof SCOPES)[number];
export const ABILITIES = ['invoices:read', 'invoices:write'] as const;
export type Ability = (typeof ABILITIES)[number];
