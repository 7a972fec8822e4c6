export * from './dates.js';
export * from './protocol.js';
