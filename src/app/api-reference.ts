// The API reference: the OpenAPI 3.1 document, at one URL (/docs/openapi.json), and the page at
// /docs that reads it. Each route's schema says what the operation takes and returns (with its
// operationId, summary, tags and request examples); what follows from the route catalogue is
// added here for every operation alike: its security requirement (from `config.auth`) and the
// error responses it can answer (openapi-errors.ts). docs/openapi.json is this document,
// written by `npm run openapi`.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { CatalogedRoute, RouteAuth } from '../domain/kernel/http-access/auth.ts';
import { answersInLegacyDialect, codesBeforeRouting, ERROR_SCHEMAS, errorResponse, errorStatusesOf } from './openapi-errors.ts';
import { ERROR_CODES } from '../platform/errors/codes.ts';

const API_TITLE = 'fiscal-gateway API';
const REFERENCE_PREFIX = '/docs';
/** The one URL of the document; the page's own /docs/json and /docs/yaml redirect here. */
const OPENAPI_PATH = `${REFERENCE_PREFIX}/openapi.json`;

/** Where @fastify/swagger-ui's page looks for the document, and where it should look instead. */
const UI_SCRIPT = `${REFERENCE_PREFIX}/static/swagger-initializer.js`;
const UI_DOCUMENT_URL = "resolveUrl('./json')";
const CANONICAL_DOCUMENT_URL = "resolveUrl('./openapi.json')";
const UI_DOCUMENT_ROUTES = new Set([`${REFERENCE_PREFIX}/json`, `${REFERENCE_PREFIX}/yaml`]);

const SECURITY_SCHEMES = {
  tenantToken: { type: 'http', scheme: 'bearer', description: 'Tenant token (tt_…) for merchant endpoints' },
  partnerKey: { type: 'http', scheme: 'bearer', description: 'Partner secret key (sk_live_… or sk_test_…)' },
  fiscalisationKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'Fiscalisation key (pk_…) for /zm/api' },
  sdcId: {
    type: 'apiKey',
    in: 'header',
    name: 'X-SdcId',
    description:
      'The SDC id of the branch to act on, sent with X-Api-Key (the header Terminal-Id is accepted as an alias). GET /zm/api/Branches lists those of the key; a missing or refused one is a 401 that names them',
  },
  adminToken: { type: 'http', scheme: 'bearer', description: 'Operator token (ADMIN_TOKEN)' },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'fg_session',
    description: "A merchant user's session (POST /api/v1/account/signin); every write also sends X-CSRF-Token",
  },
} as const;

type SecurityRequirement = Partial<Record<keyof typeof SECURITY_SCHEMES, string[]>>;

/** The security requirement of an operation, from the auth its route declares; `[]` is no credential. */
function securityOf(auth: RouteAuth): SecurityRequirement[] {
  switch (auth.surface) {
    case 'public':
    case 'till_login': // the till login is in the body
      return [];
    case 'merchant': // a tenant token, or a signed-in user's session (the console; without Authorization)
      return [{ tenantToken: [] }, { sessionCookie: [] }];
    case 'partner':
      return [{ partnerKey: [] }];
    case 'compat':
      return auth.branch === 'none' ? [{ fiscalisationKey: [] }] : [{ fiscalisationKey: [], sdcId: [] }];
    case 'admin':
      return [{ adminToken: [] }];
    case 'account':
      return [{ sessionCookie: [] }];
  }
}

/** `/api/v1/sales/:sale` → `/api/v1/sales/{sale}`. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The document as written to docs/openapi.json: 2-space JSON and a final newline. */
export const serializeOpenApi = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

interface Operation {
  responses?: Record<string, unknown>;
}
interface Document {
  paths?: Record<string, Record<string, Operation>>;
}

/** Adds each operation's error responses (a route's own, if it declares one, is kept). */
function addErrorResponses(document: Document, catalog: readonly CatalogedRoute[]): void {
  const routes = new Map(catalog.map((route) => [`${route.method} ${openApiPath(route.url)}`, route]));
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const route = routes.get(`${method.toUpperCase()} ${path}`);
      if (!route) continue;
      const responses: Record<string, unknown> = { ...operation.responses };
      const legacy = answersInLegacyDialect(route);
      for (const [status, spec] of errorStatusesOf(route)) responses[status] ??= errorResponse(status, spec, legacy);
      operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
}

function errorsDescription(): string {
  const early = codesBeforeRouting()
    .map(({ code, status }) => `${status} \`${code}\``)
    .join(' and ');
  return (
    'Errors come in three shapes (components ValidationError, CodedError and NotFound; LegacyWrappedError on /zm/api for the `wrapped` dialect). ' +
    'Each operation lists the statuses it can answer, with their codes; docs/errors.md has the whole table. ' +
    `Any request can also be refused before it reaches an operation, when Node's HTTP parser cannot read it: ${early}. ` +
    `Under /api/v1 and /admin/v1, a path asked with a method none of its operations takes is ${ERROR_CODES.method_not_allowed.status} \`method_not_allowed\` with an \`Allow\` header naming the methods it takes, ` +
    'and a path no operation takes is a plain 404 that names the closest route when one is close. Query parameters an operation does not list are refused (422), naming the one meant when it is close.'
  );
}

export async function registerApiReference(app: FastifyInstance, options: { version: string; description: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: API_TITLE, version: options.version, description: `${options.description}\n\n${errorsDescription()}` },
      components: { securitySchemes: SECURITY_SCHEMES, schemas: ERROR_SCHEMAS },
    },
    transform: ({ schema, url, route }) => {
      const auth = route.config?.auth;
      return { schema: auth && schema ? { ...schema, security: securityOf(auth) } : schema, url };
    },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) throw new Error('the API reference is an OpenAPI document');
      addErrorResponses(documentObject.openapiObject as Document, app.routeCatalog);
      return documentObject.openapiObject;
    },
  });

  await app.register(async (scope) => {
    // The page's script reads the document from ./json; send it to the one URL instead.
    scope.addHook('onSend', async (request, _reply, payload) => {
      if (request.routeOptions.url !== UI_SCRIPT || typeof payload !== 'string') return payload;
      if (!payload.includes(UI_DOCUMENT_URL))
        throw new Error(`@fastify/swagger-ui's ${UI_SCRIPT} no longer loads ${UI_DOCUMENT_URL}: update api-reference.ts`);
      return payload.replace(UI_DOCUMENT_URL, CANONICAL_DOCUMENT_URL);
    });
    await scope.register(swaggerUi, {
      routePrefix: REFERENCE_PREFIX,
      theme: { title: API_TITLE },
      uiConfig: { docExpansion: 'list', deepLinking: true, layout: 'BaseLayout' },
      staticCSP: true,
      uiHooks: {
        onRequest: async (request, reply) => {
          if (UI_DOCUMENT_ROUTES.has(request.routeOptions.url ?? '')) return reply.redirect(OPENAPI_PATH, 301);
        },
      },
    });
  });

  app.get(OPENAPI_PATH, { schema: { hide: true }, config: { auth: { surface: 'public' } } }, async () => app.swagger());
}
