export * from '@fiscal-gateway/vsdc-protocol';
export * from './client.ts';
export * from './outcome.ts';
export * from './sales-body.ts';
export * from './tax.ts';
export * from './url.ts';
