export const TAG = ['Operator'];
export const admin = { auth: { surface: 'admin' as const } };
export const actor = { type: 'admin' as const };
