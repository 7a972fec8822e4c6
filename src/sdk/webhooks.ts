// Receiver-side helpers for partners: verify a delivery's X-Service-Signature.
export { verifyWebhook, type VerifyOptions, type VerifyResult } from '../modules/webhooks/verify.ts';
