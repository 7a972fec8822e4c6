export const TAG = ['Merchant: purchases'];
export const WRITE = { auth: { surface: 'merchant' as const, ability: 'invoices:write' as const } };
export const READ = { auth: { surface: 'merchant' as const, ability: 'invoices:read' as const } };
