import { createHash } from 'node:crypto';

/** The key as sent, without the quotes of the IETF draft's sf-string form (`"abc"` = `abc`). */
export function idempotencyKeyOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const trimmed = header.trim();
  const unquoted = trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
  return unquoted === '' ? null : unquoted;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * What makes two requests "the same" for an Idempotency-Key: the operation (and its target),
 * the X-Branch header as sent, and the body with its keys in a canonical order.
 */
export function requestFingerprint(operation: string, branchHeader: string | undefined, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([operation, branchHeader ?? null, canonical(body)]))
    .digest('base64url');
}
