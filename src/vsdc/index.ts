export * from './client.ts';
export * from './codes.ts';
export * from './dates.ts';
export * from './outcome.ts';
export * from './protocol.ts';
export * from './sales-body.ts';
export * from './tax.ts';
export * from './url.ts';
