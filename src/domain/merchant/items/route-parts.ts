export const TAG = ['Merchant: items'];
export const WRITE = { auth: { surface: 'merchant' as const, ability: 'invoices:write' as const } };
export const READ = { auth: { surface: 'merchant' as const, ability: 'invoices:read' as const } };
