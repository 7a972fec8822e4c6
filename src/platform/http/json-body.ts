import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, FieldErrors, shownField } from '../errors/errors.ts';
import { invalidJsonMessage } from './json-syntax.ts';

// Every JSON body passes one check here before any route sees it, and a body that fails is a
// 422 naming each field (dotted: items.0.toString):
// - PostgreSQL text cannot hold NUL, so a NUL in a string or a key is refused here instead of
//   failing deep in the database.
// - Text must be Unicode, as the caller meant it: a string or key holding half of a UTF-16
//   surrogate pair (an escaped `\ud800` without its other half, which JSON.parse turns into a
//   lone surrogate) is no character. PostgreSQL's JSON parser refuses it (a 500 on the sale path)
//   and its text columns store it as U+FFFD. So are bytes that are not UTF-8: the
//   decoder would turn them into U+FFFD, characters the caller never sent, so the body's bytes
//   are checked before they are decoded.
// - A key named like a built-in property of JavaScript objects (`__proto__`, `constructor`,
//   `prototype`, `toString`, `hasOwnProperty`, … every name of Object.prototype) is refused at
//   any depth. Such a key is never a field of this API, and code that looks a name up in a plain
//   object finds the inherited member instead of nothing (`"toString": 1` was a 500).
//   JSON.parse makes `__proto__` an ordinary own property, so parsing itself is safe; the key is
//   refused here, by name, rather than as "not valid JSON".

/** Names a body may not use as a key, at any depth. */
const RESERVED_KEYS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
  ...Object.getOwnPropertyNames(Object.prototype),
]);

const child = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

/** Half of a UTF-16 surrogate pair without its other half: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** The escapes through which a body's text parses into a NUL or a lone surrogate: `\u0000`, `\ud800`…`\udfff`. */
const REFUSABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/**
 * Whether a body's text can parse into a string holding a NUL or a lone surrogate: through those
 * escapes, or a NUL itself (UTF-8 decodes into whole characters only: a lone surrogate in the text
 * itself stands for bytes that were not UTF-8, `decodeBody`, and such a body is always looked
 * into). Most bodies hold no `\u` at all: then two scans for one character, a fraction of the parse.
 */
const mayHoldRefusedText = (text: string) => text.includes('\u0000') || (text.includes('\\u') && REFUSABLE_ESCAPE.test(text));

type TextProblem = 'nul' | 'lone surrogate' | 'not UTF-8';

/** What a body's string or key holds that text may not; `bytesWereInvalid`: its lone surrogates stand for bytes that were not UTF-8. */
function textProblem(text: string, bytesWereInvalid: boolean): TextProblem | undefined {
  if (text.includes('\u0000')) return 'nul';
  if (LONE_SURROGATE.test(text)) return bytesWereInvalid ? 'not UTF-8' : 'lone surrogate';
  return undefined;
}

/** A key as the answer names it: without its NULs, its lone surrogates written as their escapes (or U+FFFD for bytes that were not UTF-8). */
function keyShown(key: string, problem: TextProblem): string {
  if (problem === 'nul') return key.split('\u0000').join('');
  if (problem === 'not UTF-8') return key.replace(LONE_SURROGATES, '\ufffd');
  return key.replace(LONE_SURROGATES, (unit) => `\\u${unit.charCodeAt(0).toString(16)}`);
}

function textMessage(field: string, problem: TextProblem): string {
  switch (problem) {
    case 'nul':
      return `The ${field} field must not contain NUL characters.`;
    case 'lone surrogate':
      return `The ${field} field is not valid Unicode text: it holds half of a UTF-16 surrogate pair (an escape between \\ud800 and \\udfff without its other half), which is no character. Send each character whole: as itself in UTF-8, or escaped as both halves (\u{1F600} is \\ud83d\\ude00).`;
    case 'not UTF-8':
      return `The ${field} field is not valid UTF-8 text: it holds bytes that are not UTF-8 (text in another encoding such as Windows-1252, or a character cut short). Send the body encoded as UTF-8.`;
  }
}

/**
 * The fields of a parsed body that are refused, in document order. Iterative, not recursive:
 * JSON.parse accepts nesting far deeper than the call stack. `checkText` is false when the text
 * cannot hold a NUL or a lone surrogate, which spares looking into every string.
 */
function refusedFields(body: unknown, checkText: boolean, bytesWereInvalid: boolean): FieldErrors {
  // Only what can hold a refused field is looked into: objects, arrays, and strings when checking text.
  const worthVisiting = (v: unknown) => (typeof v === 'object' && v !== null) || (checkText && typeof v === 'string');
  const errors = new FieldErrors();
  const stack: Array<[value: unknown, path: string]> = [[body, '']];
  // A body with hundreds of bad keys names the first ones only (FieldErrors): no need to look further.
  while (stack.length > 0 && !errors.full) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value, bytesWereInvalid);
      if (problem) {
        const field = shownField(path || 'body');
        errors.add(field, textMessage(field, problem));
      }
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const children: Array<[unknown, string]> = [];
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (worthVisiting(value[i])) children.push([value[i], child(path, String(i))]);
    } else {
      for (const [key, v] of Object.entries(value)) {
        const problem = checkText ? textProblem(key, bytesWereInvalid) : undefined;
        if (problem) {
          const field = shownField(child(path, keyShown(key, problem)));
          errors.add(field, textMessage(field, problem));
        } else if (RESERVED_KEYS.has(key)) {
          const field = shownField(child(path, key));
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

/** The length of the well-formed UTF-8 sequence at `at` (Unicode Table 3-7), or 0 when the byte there starts none. */
function utf8SequenceAt(bytes: Buffer, at: number): number {
  const lead = bytes[at]!;
  if (lead < 0x80) return 1;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) low = 0xa0;
    if (lead === 0xed) high = 0x9f; // ED A0..BF would encode a surrogate
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90;
    if (lead === 0xf4) high = 0x8f;
  } else return 0;
  if (at + length > bytes.length) return 0;
  const second = bytes[at + 1]!;
  if (second < low || second > high) return 0;
  for (let i = 2; i < length; i++) if ((bytes[at + i]! & 0xc0) !== 0x80) return 0;
  return length;
}

/**
 * The body's text. Bytes that are not UTF-8 (rare: the slow path) are decoded as a lone surrogate
 * each instead of U+FFFD, so that the text check names the field that holds them; such a
 * surrogate outside a string makes the body invalid JSON, as the bytes did.
 */
function decodeBody(bytes: Buffer): { text: string; bytesWereInvalid: boolean } {
  if (isUtf8(bytes)) return { text: bytes.toString('utf8'), bytesWereInvalid: false };
  const parts: string[] = [];
  let start = 0;
  for (let at = 0; at < bytes.length;) {
    const length = utf8SequenceAt(bytes, at);
    if (length > 0) {
      at += length;
      continue;
    }
    parts.push(bytes.toString('utf8', start, at), '\ud800');
    at += 1;
    start = at;
  }
  parts.push(bytes.toString('utf8', start));
  return { text: parts.join(''), bytesWereInvalid: true };
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
  // As bytes: decoding them here is what tells bytes that are not UTF-8 from a U+FFFD sent as such.
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (request, raw, done) => {
    const { text, bytesWereInvalid } = decodeBody(raw as Buffer);
    // Empty JSON bodies (curl -X POST -H 'Content-Type: application/json') count as no body.
    if (text.trim() === '') return done(null, undefined);
    // Answers through its callback (the default parser is synchronous): nothing to await.
    void parseJson(request, text, (err, value) => {
      if (err)
        return done(new ApiError('invalid_json', invalidJsonMessage(bytesWereInvalid ? text.replace(LONE_SURROGATES, '\ufffd') : text)));
      const refused = refusedFields(value, bytesWereInvalid || mayHoldRefusedText(text), bytesWereInvalid);
      if (refused.size > 0) return done(refused.toError());
      bodyTexts.set(request, text);
      done(null, value);
    });
  });
}
