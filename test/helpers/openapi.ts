// Reading the served OpenAPI document in tests: its operations, each with the route it documents,
// and a check that an answer is what the document says the operation answers.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { App } from '../../src/app/app.ts';
import { openApiPath } from '../../src/app/api-reference.ts';
import type { CatalogedRoute } from '../../src/domain/kernel/http-access/auth.ts';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  example?: unknown;
  schema?: { type?: string };
}

export interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: unknown; example?: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

export interface DocumentedOperation {
  method: string;
  path: string;
  operation: Operation;
  route: CatalogedRoute;
  /** `POST /api/v1/sales`, for messages. */
  name: string;
}

export async function servedDocument(app: App): Promise<OpenApiDocument> {
  const res = await app.inject({ method: 'GET', url: '/docs/openapi.json' });
  assert.equal(res.statusCode, 200);
  return res.json();
}

/** Every operation of the document with the catalogued route it documents. */
export function operationsOf(document: OpenApiDocument, app: App): DocumentedOperation[] {
  const routes = new Map(app.routeCatalog.map((route) => [`${route.method} ${openApiPath(route.url)}`, route]));
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => {
      const name = `${method.toUpperCase()} ${path}`;
      const route = routes.get(name);
      assert.ok(route, `${name} is in the document but not in the route catalogue`);
      return { method: method.toUpperCase(), path, operation, route, name };
    }),
  );
}

export const requestExample = (operation: Operation): unknown => operation.requestBody?.content['application/json']?.example;

/** The path with each parameter from `values`, else its example. */
export function fillPath(op: DocumentedOperation, values: Record<string, string | number> = {}): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const parameter = op.operation.parameters?.find((p) => p.in === 'path' && p.name === name);
    const value = values[name] ?? (parameter?.example as string | number | undefined);
    assert.ok(value !== undefined, `${op.name}: no value for the path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}

/** Checks answers against the document: the status is one it lists, an error body has its shape. */
export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private static readonly ID = 'https://fiscal-gateway.test/openapi.json';

  constructor(document: OpenApiDocument) {
    // The whole document as one schema, so that the responses' `#/components/schemas/…` resolve.
    this.ajv.addSchema({ ...document, $id: ResponseChecker.ID }, ResponseChecker.ID, undefined, false);
  }

  assertDocumented(op: DocumentedOperation, res: LightMyRequestResponse, what: string): void {
    const status = String(res.statusCode);
    const response = op.operation.responses[status];
    assert.ok(
      response,
      `${op.name} (${what}) answered ${status}, which its documentation does not list (${Object.keys(op.operation.responses).join(', ')}): ${res.body.slice(0, 300)}`,
    );
    if (res.statusCode < 400) return;
    assert.ok(response.content?.['application/json'], `${op.name} ${status} documents no JSON body`);
    const pointer = `#/paths/${pointerPart(op.path)}/${op.method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
    const validate = this.ajv.getSchema(`${ResponseChecker.ID}${pointer}`);
    assert.ok(validate, `no schema at ${pointer}`);
    assert.ok(
      validate(res.json()),
      `${op.name} (${what}) answered ${status} with a body its documentation does not describe: ${res.body.slice(0, 300)} — ${JSON.stringify(validate.errors)}`,
    );
  }
}

const pointerPart = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
