// Builds plausible and broken JSON values from a route's JSON Schema, for the fuzz test.

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
  minItems?: number;
  examples?: unknown[];
};

function stringFor(s: Schema): string {
  if (s.format === 'email') return 'someone@example.com';
  if (s.format === 'date-time') return new Date().toISOString();
  if (s.pattern === '^[0-9]{10}$') return '1002345678';
  if (s.pattern === '^[0-9]{3}$') return '000';
  if (s.pattern?.startsWith('^https?://')) return 'http://127.0.0.1:9/vsdc';
  if (s.pattern) return 'A';
  return 'x'.repeat(Math.max(1, s.minLength ?? 1));
}

/**
 * A value of the schema: its own example when it gives one (a body the route accepts, so that a
 * mutation of one field is refused for that field, or gets past validation into the handler),
 * else one built from its types.
 */
export function sample(schema: unknown): unknown {
  const s = (schema ?? {}) as Schema;
  if (s.examples && s.examples.length > 0) return structuredClone(s.examples[0]);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.anyOf) return sample(s.anyOf.find((x) => x.type !== 'null') ?? s.anyOf[0]);
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(s.properties ?? {})) out[key] = sample(child);
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(s.items));
    case 'string':
      return stringFor(s);
    case 'integer':
      return Math.max(1, s.minimum ?? 1);
    case 'number':
      return Math.max(1, s.minimum ?? 1);
    case 'boolean':
      return true;
    default:
      return null;
  }
}

const WRONG_VALUES: unknown[] = [
  null,
  12345,
  -1,
  0,
  1e308,
  1e21,
  2 ** 53 + 2,
  0.005,
  0.1234567,
  999_999_999_999.999,
  true,
  'x',
  '',
  ' ',
  'x'.repeat(256),
  'x'.repeat(100_000),
  '2026-02-30',
  '9999-12-31T23:59:59Z',
  '0000-01-01T00:00:00.000Z',
  [],
  [1, 2],
  {},
  { nested: { deep: [null] } },
  '<script>alert(1)</script>',
  '\u0000\u202e',
  'ÿ€\ud83d\ude00\u0301',
  'Sugar \ud83d',
];

/** Each field of the sample replaced by each wrong value, removed, and nested likewise. */
export function mutations(schema: unknown): Generator<{ label: string; body: unknown }> {
  return mutationsAt(schema, schema, sample(schema), []);
}

/** The mutations of the field at `path` (and those nested in it) of a sample of `root`. */
function* mutationsAt(root: unknown, schema: unknown, value: unknown, path: string[]): Generator<{ label: string; body: unknown }> {
  const s = (schema ?? {}) as Schema;
  const set = (replacement: unknown, remove = false) => {
    const body = structuredClone(sample(root)) as Record<string, unknown>;
    let node = body;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
    const last = path[path.length - 1]!;
    if (remove) delete node[last];
    else node[last] = replacement;
    return body;
  };
  if (path.length > 0) {
    for (const wrong of WRONG_VALUES) yield { label: `${path.join('.')}=${JSON.stringify(wrong)?.slice(0, 20)}`, body: set(wrong) };
    yield { label: `${path.join('.')} removed`, body: set(undefined, true) };
  }
  const props = s.anyOf ? s.anyOf.find((x) => x.type === 'object')?.properties : s.properties;
  if (props && value && typeof value === 'object' && path.length < 3) {
    for (const key of Object.keys(props)) yield* mutationsAt(root, props[key], (value as Record<string, unknown>)[key], [...path, key]);
  }
  const items = s.items;
  if (items && Array.isArray(value) && path.length < 3) yield* mutationsAt(root, items, value[0], [...path, '0']);
}

/** The path of every value in a sample (object keys and the first element of arrays), nested ones included. */
export function valuePaths(value: unknown, path: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [];
  const entries = Array.isArray(value) ? (value.length > 0 ? [['0', value[0]] as const] : []) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...path, key], ...valuePaths(child, [...path, key])]);
}

/** A copy of `value` with the value at `path` replaced. */
export function withValueAt(value: unknown, path: string[], replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string, unknown>;
  node[path[path.length - 1]!] = replacement;
  return copy;
}

/** The paths of the objects nested in a sample (inside objects and array elements), not the root. */
export function nestedObjectPaths(value: unknown, path: string[] = []): string[][] {
  const out: string[][] = [];
  if (value === null || typeof value !== 'object') return out;
  if (path.length > 0 && !Array.isArray(value)) out.push(path);
  for (const [key, child] of Object.entries(value)) out.push(...nestedObjectPaths(child, [...path, key]));
  return out;
}

/**
 * A copy of `value` with `key: 1` added to the object at `path`, as an own property even when
 * the key is `__proto__` (JSON.stringify then writes it like any other key).
 */
export function withKeyAt(value: unknown, path: string[], key: string): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  let node = copy;
  for (const step of path) node = node[step] as Record<string, unknown>;
  Object.defineProperty(node, key, { value: 1, enumerable: true, writable: true, configurable: true });
  return copy;
}
