import type { FastifyReply } from 'fastify';
import type { WriteResult } from './service.ts';

export const TAG = ['Merchant: sales'];
export const WRITE = { auth: { surface: 'merchant' as const, ability: 'invoices:write' as const } };
export const READ = { auth: { surface: 'merchant' as const, ability: 'invoices:read' as const } };

export function created(reply: FastifyReply, result: WriteResult) {
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(201).send({ data: result.sale });
}

export const WRITE_DESCRIPTION =
  'Answers 201 once the document is durably stored with its invoice number, after waiting up to SALE_WAIT_MS for its filing: ' +
  'status `uploaded` (print it), `failed` (refused by the authority) or `pending` (queued; only an uploaded document is a fiscal receipt). ' +
  'With an Idempotency-Key, a repeat of the same request returns the original document with `Idempotent-Replayed: true`.';
