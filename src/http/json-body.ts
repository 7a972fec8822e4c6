import type { FastifyInstance } from 'fastify';
import { ValidationError } from './errors.ts';

// PostgreSQL text cannot hold NUL; a body carrying one is refused here, naming the field,
// instead of failing deep in the database.

function findNul(value: unknown, path: string[]): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') || 'body' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], [...path, String(i)]);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key.includes('\u0000')) return [...path, key.split('\u0000').join('')].join('.');
      const found = findNul(child, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

export function registerJsonBodyParser(app: FastifyInstance, bodyLimit: number): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, raw, done) => {
    const text = raw as string;
    // Empty JSON bodies (curl -X POST -H 'Content-Type: application/json') count as no body.
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (err, value) => {
      if (err) return done(err);
      if (/\\u0000/i.test(text) || text.includes('\u0000')) {
        const field = findNul(value, []);
        if (field) return done(new ValidationError({ [field]: [`The ${field} field must not contain NUL characters.`] }));
      }
      done(null, value);
    });
  });
}
