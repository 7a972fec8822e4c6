export * from '@fiscal-gateway/vsdc-protocol';
export * from './client.ts';
export * from './codes.ts';
export * from './outcome.ts';
export * from './registrant.ts';
export * from './sales-body.ts';
export * from './tax.ts';
export * from './url.ts';
