import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, FieldErrors } from '../errors/errors.ts';
import { invalidJsonMessage } from './json-syntax.ts';

// Every JSON body passes one check here before any route sees it, and a body that fails is a
// 422 naming each field (dotted: items.0.toString):
// - PostgreSQL text cannot hold NUL, so a NUL in a string or a key is refused here instead of
//   failing deep in the database.
// - A key named like a built-in property of JavaScript objects (`__proto__`, `constructor`,
//   `prototype`, `toString`, `hasOwnProperty`, … every name of Object.prototype) is refused at
//   any depth. Such a key is never a field of this API, and code that looks a name up in a plain
//   object finds the inherited member instead of nothing (issue 15: `"toString": 1` was a 500).
//   JSON.parse makes `__proto__` an ordinary own property, so parsing itself is safe; the key is
//   refused here, by name, rather than as "not valid JSON".

/** Names a body may not use as a key, at any depth. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype', ...Object.getOwnPropertyNames(Object.prototype)]);

/** A body with hundreds of bad keys names the first ones only. */
const MAX_REPORTED_FIELDS = 20;

/** Longer paths (absurd nesting, a megabyte-long key) are named by their end, so an answer stays small. */
const MAX_SHOWN_PATH = 200;

const child = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);
const shown = (field: string) => (field.length > MAX_SHOWN_PATH ? `…${field.slice(-(MAX_SHOWN_PATH - 1))}` : field);

/**
 * The fields of a parsed body that are refused, in document order. Iterative, not recursive:
 * JSON.parse accepts nesting far deeper than the call stack. `checkNul` is false when the text
 * cannot contain a NUL, which spares looking into every string.
 */
function refusedFields(body: unknown, checkNul: boolean): FieldErrors {
  // Only what can hold a refused field is looked into: objects, arrays, and strings when checking NUL.
  const worthVisiting = (v: unknown) => (typeof v === 'object' && v !== null) || (checkNul && typeof v === 'string');
  const errors = new FieldErrors();
  const stack: Array<[value: unknown, path: string]> = [[body, '']];
  while (stack.length > 0 && errors.size < MAX_REPORTED_FIELDS) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (checkNul && value.includes('\u0000')) {
        const field = shown(path || 'body');
        errors.add(field, `The ${field} field must not contain NUL characters.`);
      }
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const children: Array<[unknown, string]> = [];
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (worthVisiting(value[i])) children.push([value[i], child(path, String(i))]);
    } else {
      for (const [key, v] of Object.entries(value)) {
        if (checkNul && key.includes('\u0000')) {
          const field = shown(child(path, key.split('\u0000').join('')));
          errors.add(field, `The ${field} field must not contain NUL characters.`);
        } else if (RESERVED_KEYS.has(key)) {
          const field = shown(child(path, key));
          errors.add(
            field,
            `The ${field} field is not accepted: "${key}" is the name of a built-in property of JavaScript objects and is never a field of this API. Remove it (the reference page at /docs lists each endpoint's fields).`,
          );
        } else if (worthVisiting(v)) {
          children.push([v, child(path, key)]);
        }
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return errors;
}

/** Each parsed body's text as it arrived, for a route that keeps what was sent (compat's originalFormat). */
const bodyTexts = new WeakMap<FastifyRequest, string>();

/** The request's JSON body exactly as received; undefined when it had none. */
export function jsonBodyText(request: FastifyRequest): string | undefined {
  return bodyTexts.get(request);
}

export function registerJsonBodyParser(app: FastifyInstance, bodyLimit: number): void {
  // JSON only: Fastify's built-in text/plain parser would hand a route a string, refused later
  // as a 422 about the body's shape; without it any other media type is a 415.
  app.removeContentTypeParser('text/plain');
  // `ignore`: the parser's own check would call a `__proto__` key "not valid JSON" (400) without
  // naming it; refusedFields refuses it, and every other reserved key, by name.
  const parseJson = app.getDefaultJsonParser('ignore', 'ignore');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, raw, done) => {
    const text = raw as string;
    // Empty JSON bodies (curl -X POST -H 'Content-Type: application/json') count as no body.
    if (text.trim() === '') return done(null, undefined);
    // Answers through its callback (the default parser is synchronous): nothing to await.
    void parseJson(request, text, (err, value) => {
      if (err) return done(new ApiError('invalid_json', invalidJsonMessage(text)));
      const refused = refusedFields(value, /\\u0000/i.test(text) || text.includes('\u0000'));
      if (refused.size > 0) return done(refused.toError());
      bodyTexts.set(request, text);
      done(null, value);
    });
  });
}
