/**
 * Builds the OpenAPI 3.1 document from the route table (functions/routes.ts), the operation
 * each handler module declares beside its code (request schemas, success, its own errors,
 * words for readers), the response schemas (functions/core/resources.ts) and the error
 * catalogue (functions/core/errors.ts). Nothing here is written by hand twice: `npm run
 * openapi` writes the result to openapi.json, and a test fails when the committed file
 * differs from what this builds.
 *
 * Never imported by a handler: the generator stays out of every Lambda bundle.
 */
import { pathToFileURL } from 'node:url';
import * as z from 'zod/mini';
import { type ProblemKind, problems } from '#core/errors';
import type { ContentSuccess, DomainProblem, JsonSuccess, Operation, Tag } from '#core/http/operation';
import { MAX_REQUEST_BODY_BYTES } from '#core/http/request-guards';
import { TAKES_IDEMPOTENCY_KEY } from '#core/http/write-endpoint';
import { ID_PATTERN } from '#core/ids';
import { problemSchema, resources } from '#core/resources';
import { type Route, routes } from '#functions/routes';
import { handlerEntry } from '#lib/bundling';
import packageJson from '../../package.json' with { type: 'json' };

type Json = Record<string, unknown>;

/** An operation as its module declares it, and whether its handler takes Idempotency-Key. */
export type Documented = Operation & { takesIdempotencyKey: boolean };
/** Each route's operation, read from its handler module (the route table names the module). */
export type Operations = ReadonlyMap<string, Documented>;

export async function loadOperations(): Promise<Operations> {
  const loaded = new Map<string, Documented>();
  for (const route of routes) {
    const module = (await import(pathToFileURL(handlerEntry(route.handler)).href)) as { operation?: Operation; handler?: unknown };
    if (!module.operation || typeof module.handler !== 'function') {
      throw new Error(`functions/${route.handler}.ts must export \`operation\` and \`handler\` (route ${route.name})`);
    }
    const takesIdempotencyKey = (module.handler as { [TAKES_IDEMPOTENCY_KEY]?: boolean })[TAKES_IDEMPOTENCY_KEY] === true;
    loaded.set(route.name, { ...module.operation, takesIdempotencyKey });
  }
  return loaded;
}

const tags: Record<Tag, string> = {
  Repositories: 'A repository holds folders and documents; each member has a role in it (`owner`, `editor`, `viewer`).',
  Members: 'Sharing: who is a member of a repository, and with which role. A repository always keeps at least one owner.',
  Folders: 'Folders nest; a repository has one root folder. Lists are by name, case-insensitively, in pages.',
  Documents: 'Documents of inline UTF-8 text or files, versioned for optimistic concurrency (`ETag` / `If-Match`).',
  Uploads:
    'Files of any type and size, sent straight to the bucket with presigned URLs (one PUT per part), then completed into a version of a document.',
  Trash: "Deleted documents and folders stay in their repository's trash for 30 days, and can be restored.",
  Revisions: 'Every version of a document is a revision: read one, or restore it as a new version.',
  Changes: "Each repository's change feed: every change after a cursor, in order, exactly once.",
  Links:
    'Share links: one document read by anyone who holds its link, without an account, with an optional expiry and password, revoked at once.',
  Search: 'Find folders and documents by name and content in the repositories you belong to; changes show within seconds.',
  Documentation: 'This reference and the OpenAPI document it is made from. Public: no token.',
};

/** Every kind of problem, in the order of the catalogue. */
const problemKinds = Object.keys(problems) as ProblemKind[];
const problemInfo = (kind: ProblemKind) => problems[kind];

/**
 * What API Gateway itself answers on AWS before any handler runs (its JWT authorizer's 401,
 * its throttling 429, its own 413, 500 and 503): `{"message": "..."}`, not problem+json.
 */
const gatewayMessageSchema = z.strictObject({ message: z.string().check(z.meta({ examples: ['Unauthorized'] })) });

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name: string) => `#/components/responses/${name}`;

/** zod → JSON Schema 2020-12 (OpenAPI 3.1's dialect), without the keywords a component does not need. */
function toJsonSchema(schema: z.core.$ZodType, io: 'input' | 'output'): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'throw' }) as Json;
  return rest;
}

/** Several schemas at once, as components that refer to each other by `$ref`. */
function toComponents(schemas: Record<string, z.core.$ZodType>, io: 'input' | 'output'): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const { schemas: converted } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'throw',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  return Object.fromEntries(Object.entries(converted).map(([id, { $schema: _s, $id: _i, ...rest }]) => [id, rest]));
}

// ---------------------------------------------------------------------------------------------
// Errors: one response component per status, each answer's body one problem+json schema per kind.

const pascal = (kind: string) => kind.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
const problemSchemaName = (kind: ProblemKind) => `${pascal(kind === 'validation-error' ? 'validation' : kind)}Problem`;

/** Kinds API Gateway can answer itself on AWS, before (or instead of) a handler. */
const gatewayKinds = new Set<ProblemKind>(['unauthorized', 'payload-too-large', 'throttled', 'internal', 'unavailable']);

interface ErrorResponse {
  name: string;
  kinds: ProblemKind[];
  description: string;
  headers?: Json;
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Error responses by the name of their component. */
const errorResponses: ErrorResponse[] = [
  {
    name: 'InvalidRequest',
    kinds: ['validation-error'],
    description: 'A path or query parameter, or a header, failed validation; `errors[]` names each.',
  },
  {
    name: 'InvalidBody',
    kinds: ['validation-error', 'malformed-json'],
    description: 'The body is not valid JSON, or a field (or parameter) failed validation; `errors[]` names each.',
  },
  {
    name: 'Unauthorized',
    kinds: ['unauthorized'],
    description: "No bearer token, or one that fails verification (on AWS, API Gateway's JWT authorizer answers).",
    headers: { 'WWW-Authenticate': header('WWWAuthenticate') },
  },
  { name: 'Forbidden', kinds: ['forbidden'], description: 'Your role in the repository does not allow the change.' },
  { name: 'NotFound', kinds: ['not-found'], description: 'No such resource, or you are not a member of its repository.' },
  { name: 'Conflict', kinds: ['conflict'], description: 'A name or id clash.' },
  {
    name: 'PreconditionFailed',
    kinds: ['precondition-failed'],
    description: 'The stored version is not the one required; nothing changed.',
  },
  {
    name: 'PayloadTooLarge',
    kinds: ['payload-too-large'],
    description:
      `The request body is over ${MAX_REQUEST_BODY_BYTES} bytes (whatever the method; a raw content body: over its own limit), or \`content\` is over its limit. ` +
      "A body over 10 MB never reaches the service (API Gateway's limit).",
  },
  { name: 'UnsupportedMediaType', kinds: ['unsupported-media-type'], description: 'The body is not `application/json` (UTF-8).' },
  {
    name: 'TooManyRequests',
    kinds: ['throttled'],
    description: 'Throttled, by the database or (on AWS) by API Gateway; retry after a while.',
    headers: { 'Retry-After': header('RetryAfter') },
  },
  { name: 'InternalServerError', kinds: ['internal'], description: 'A bug. The body never shows internals.' },
  {
    name: 'ServiceUnavailable',
    kinds: ['unavailable'],
    description: 'The database is unavailable, or changes kept colliding; retry after a while.',
    headers: { 'Retry-After': header('RetryAfter') },
  },
];

function errorResponse({ kinds, description, headers }: ErrorResponse): Json {
  const byGateway = kinds.some((kind) => gatewayKinds.has(kind));
  const problem =
    kinds.length === 1 ? schemaRef(problemSchemaName(kinds[0]!)) : { oneOf: kinds.map((k) => schemaRef(problemSchemaName(k))) };
  const content: Json = { 'application/problem+json': { schema: problem } };
  if (byGateway) content['application/json'] = { schema: schemaRef('GatewayMessage') };
  return {
    description: byGateway
      ? `${description} API Gateway's own answers on AWS are \`application/json\` \`{"message": "..."}\`.`
      : description,
    // API Gateway's own answers carry no Cache-Control; the service's always do.
    headers: { 'Cache-Control': header(byGateway ? 'CacheControlIfAny' : 'CacheControl'), ...headers },
    content,
  };
}

const statusOf = (response: ErrorResponse) => problemInfo(response.kinds[0]!).status;
const errorResponseNamed = (name: string) => errorResponses.find((r) => r.name === name)!;

/** The error responses an operation can answer with, by status. */
/** The shared response component of a domain error kind, where there is one. */
const domainComponents: Partial<Record<DomainProblem, string>> = {
  forbidden: 'Forbidden',
  'not-found': 'NotFound',
  conflict: 'Conflict',
  'precondition-failed': 'PreconditionFailed',
};

/**
 * The error responses an operation can answer with, by status: those every endpoint of its
 * kind shares (components), and those its own logic raises (`operation.errors`). Several kinds
 * of one status (409: a name clash, or the last owner) answer one of their problem schemas.
 */
function operationErrors(route: Route, spec: Documented): Record<string, Json> {
  const responses: Record<string, Json> = {};
  const shared = (name: string, description?: string) => {
    responses[String(statusOf(errorResponseNamed(name)))] = { $ref: responseRef(name), ...(description ? { description } : {}) };
  };
  // What the schemas (or the If-Match parser) validate; the docs asset name is only looked up (404).
  if (spec.body) shared('InvalidBody');
  else if (spec.params || spec.query || spec.ifMatch) shared('InvalidRequest');
  if (!route.public) shared('Unauthorized');
  const byStatus = new Map<number, [DomainProblem, string][]>();
  const retries: Partial<Record<DomainProblem, string>> = spec.takesIdempotencyKey
    ? {
        'request-in-progress': 'A request with the same Idempotency-Key is still running.',
        'idempotency-key-reused': 'The Idempotency-Key was used for another request.',
      }
    : {};
  for (const [kind, description] of Object.entries({ ...spec.errors, ...retries }) as [DomainProblem, string][]) {
    const status = problemInfo(kind).status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), [kind, description]]);
  }
  for (const [status, kinds] of [...byStatus].sort(([a], [b]) => a - b)) {
    const [first] = kinds;
    const component = kinds.length === 1 ? domainComponents[first![0]] : undefined;
    if (component) {
      shared(component, first![1]);
      continue;
    }
    const schemas = kinds.map(([kind]) => schemaRef(problemSchemaName(kind)));
    responses[String(status)] = {
      description: kinds.map(([, description]) => description).join(' Or: '),
      headers: {
        'Cache-Control': header('CacheControl'),
        ...(kinds.some(([kind]) => kind === 'request-in-progress') ? { 'Retry-After': header('RetryAfter') } : {}),
      },
      content: { 'application/problem+json': { schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas } } },
    };
  }
  shared('PayloadTooLarge');
  if (spec.body) shared('UnsupportedMediaType');
  shared('TooManyRequests');
  shared('InternalServerError');
  shared('ServiceUnavailable');
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

// ---------------------------------------------------------------------------------------------
// Operations.

/** Parameters are shared components, declared once by name; two different ones of a name fail. */
class Parameters {
  readonly components: Record<string, Json> = {};
  ref(key: string, parameter: Json): Json {
    const existing = this.components[key];
    if (existing && JSON.stringify(existing) !== JSON.stringify(parameter)) {
      throw new Error(`Two different parameters would be components.parameters.${key}`);
    }
    this.components[key] = parameter;
    return { $ref: `#/components/parameters/${key}` };
  }
}

/** One parameter per property of a params/query schema; its description moves up from the schema. */
function schemaParameters(parameters: Parameters, schema: z.core.$ZodObject, location: 'path' | 'query'): Json[] {
  // Path parameters are text as sent; query parameters are documented as the value they parse
  // to (`limit` is an integer), which is how OpenAPI describes a `form`-style parameter.
  const input = toJsonSchema(schema, 'input') as { properties: Record<string, Json>; required?: string[] };
  const parsed = location === 'query' ? (toJsonSchema(schema, 'output') as { properties: Record<string, Json> }) : input;
  return Object.keys(input.properties).map((name) => {
    const { description, examples, ...property } = parsed.properties[name]!;
    const required = location === 'path' || (input.required ?? []).includes(name);
    return parameters.ref(name, {
      name,
      in: location,
      required,
      ...(description ? { description } : {}),
      schema: property,
      ...(Array.isArray(examples) ? { example: examples[0] } : {}),
    });
  });
}

/** `/document/{id}` → a pattern every such path matches (a parameter other than an id: any percent-encoded segment). */
const locationPattern = (template: string) =>
  `^${template.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'id' ? ID_PATTERN.slice(1, -1) : "[A-Za-z0-9%._~!$&'()*+,;=:@-]+"))}$`;

/** The headers every content answer carries (functions/core/use-cases/content.ts). */
const contentSafetyHeaders = () => ({
  'Cache-Control': header('CacheControl'),
  'Content-Disposition': header('ContentDisposition'),
  'X-Content-Type-Options': header('ContentTypeOptions'),
  'Content-Security-Policy': header('SandboxPolicy'),
});

/** A content route's answers: the bytes (200), or a 302 to the bucket. */
function contentResponses(success: ContentSuccess): Record<string, Json> {
  return {
    '200': {
      description: success.description,
      headers: { ...contentSafetyHeaders(), ETag: header('ETag') },
      content: { '*/*': { schema: {} } },
    },
    '302': {
      description: success.redirect,
      headers: {
        ...contentSafetyHeaders(),
        Location: {
          description: 'A presigned GetObject URL of the bucket, for this one object, valid for at most 15 minutes.',
          required: true,
          schema: { type: 'string', format: 'uri' },
        },
      },
    },
  };
}

function successResponse({ success }: Operation): Json {
  if ('redirect' in success) return contentResponses(success)['200']!;
  if ('mediaTypes' in success) {
    const headers: Json = { 'Cache-Control': header('PublicCacheControl') };
    if (success.contentSecurityPolicy) headers['Content-Security-Policy'] = header('ContentSecurityPolicy');
    const content = Object.fromEntries(
      Object.entries(success.mediaTypes).map(([type, { description }]) => [
        type,
        { schema: type === 'application/json' ? { type: 'object', ...(description ? { description } : {}) } : { type: 'string' } },
      ]),
    );
    return { description: success.description, headers, content };
  }
  return jsonSuccessResponse(success);
}

function jsonSuccessResponse(success: JsonSuccess): Json {
  const headers: Json = { 'Cache-Control': header('CacheControl') };
  if (success.location) {
    headers.Location = {
      description: 'The path of the new resource.',
      required: true,
      schema: { type: 'string', pattern: locationPattern(success.location) },
    };
  }
  if (success.etag) headers.ETag = header('ETag');
  const response: Json = { description: success.description, headers };
  if (success.body) response.content = { 'application/json': { schema: schemaRef(success.body) } };
  return response;
}

/** The 201 of an operation that answers 201 when it made what it names, its usual status otherwise. */
function createdResponse(success: JsonSuccess): Json {
  const { created } = success;
  return jsonSuccessResponse({
    ...success,
    status: 201,
    description: created!.description,
    location: created!.location,
    created: undefined,
  });
}

/** The 202 of an operation that answers 202 with `Retry-After` while its work goes on. */
function acceptedResponse(success: JsonSuccess): Json {
  const { accepted } = success;
  return {
    description: accepted!.description,
    headers: { 'Cache-Control': header('CacheControl'), 'Retry-After': header('RetryAfter') },
    content: { 'application/json': { schema: schemaRef(accepted!.body) } },
  };
}

/** The request body's component: named after the route (`CreateDocument` → `CreateDocumentRequest`). */
const requestBodyName = (route: Route) => `${route.name}Request`;

function operation(route: Route, spec: Documented, parameters: Parameters): Json {
  const params: Json[] = [];
  if (spec.params) params.push(...schemaParameters(parameters, spec.params, 'path'));
  if (spec.pathParameter) {
    const { name, description, enum: values } = spec.pathParameter;
    params.push({ name, in: 'path', required: true, description, schema: { type: 'string', enum: [...values] } });
  }
  if (spec.query) params.push(...schemaParameters(parameters, spec.query, 'query'));
  if (spec.ifMatch) params.push({ $ref: '#/components/parameters/If-Match' });
  if (spec.takesIdempotencyKey) params.push({ $ref: '#/components/parameters/Idempotency-Key' });
  return {
    operationId: route.name[0]!.toLowerCase() + route.name.slice(1),
    tags: [spec.tag],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(route.public ? { security: [] } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: spec.bodyOptional !== true,
            content: { 'application/json': { schema: schemaRef(requestBodyName(route)) } },
          },
        }
      : {}),
    ...(spec.rawBody
      ? {
          requestBody: {
            required: true,
            description: `${spec.rawBody.description} At most ${spec.rawBody.maxBytes} bytes (more is 413).`,
            content: { '*/*': { schema: {} } },
          },
        }
      : {}),
    responses: withLinkHeaders(spec, {
      [String(spec.success.status)]: successResponse(spec),
      ...('redirect' in spec.success ? { '302': contentResponses(spec.success)['302'] } : {}),
      ...('created' in spec.success && spec.success.created ? { '201': createdResponse(spec.success) } : {}),
      ...('accepted' in spec.success && spec.success.accepted ? { '202': acceptedResponse(spec.success) } : {}),
      ...operationErrors(route, spec),
    }),
  };
}

/**
 * A share link's public route (functions/links/public.ts): every answer, errors included, is
 * `Cache-Control: private, no-store` with `Referrer-Policy: no-referrer`, and a 401 challenges
 * for the link's password. Shared error responses are written out in full to say so.
 */
function withLinkHeaders(spec: Documented, responses: Record<string, Json>): Record<string, Json> {
  if (!spec.linkAnswers) return responses;
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const ref = typeof response.$ref === 'string' ? response.$ref : undefined;
      const shared = ref ? errorResponses.find((r) => responseRef(r.name) === ref) : undefined;
      const full: Json = shared
        ? { ...errorResponse(shared), ...(response.description ? { description: response.description } : {}) }
        : response;
      const headers = { ...(full.headers as Json) };
      const ifAny = JSON.stringify(headers['Cache-Control']) === JSON.stringify(header('CacheControlIfAny'));
      headers['Cache-Control'] = header(ifAny ? 'PrivateCacheControlIfAny' : 'PrivateCacheControl');
      headers['Referrer-Policy'] = header('ReferrerPolicy');
      if (status === '401') headers['WWW-Authenticate'] = header('LinkPasswordChallenge');
      return [status, { ...full, headers }];
    }),
  );
}

/**
 * 405 is only ever the `$default` route's answer, which lives in an extension (x-default-route)
 * that OpenAPI tools do not look into: written out in full there, not as components.
 */
function methodNotAllowed(): Json {
  return {
    description: 'The path exists, but not with this method.',
    headers: {
      'Cache-Control': header('CacheControl'),
      Allow: { description: 'The methods the path serves.', required: true, schema: { type: 'string', pattern: '^[A-Z]+(?:, [A-Z]+)*$' } },
    },
    content: { 'application/problem+json': { schema: toJsonSchema(problemSchema('method-not-allowed'), 'output') } },
  };
}

// ---------------------------------------------------------------------------------------------
// The document.

/** `If-Match` as preconditions.ts parses it: `*`, or an RFC 9110 list of entity tags (empty elements allowed). */
const ENTITY_TAG = '(?:W/)?"[\\x21\\x23-\\x7E\\x80-\\xFF]*"';
export const IF_MATCH_PATTERN = `^[ \\t]*(?:\\*|(?:${ENTITY_TAG})?(?:[ \\t]*,[ \\t]*(?:${ENTITY_TAG})?)*)[ \\t]*$`;

const components = (parameters: Parameters, operations: Operations) => ({
  securitySchemes: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        "A JWT from the configured OpenID Connect issuer, verified as API Gateway's JWT authorizer does: RS256 signature " +
        "against the issuer's JWKS, `iss`, `aud` (or `client_id`), `exp`, `nbf`. The caller is `sub`. Locally: " +
        '`npm run --silent token -- <user>`.',
    },
  },
  parameters: {
    ...parameters.components,
    'Idempotency-Key': {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: a repeat of this request with the same key, by the same user, within 24 hours, gets the first ' +
        'answer again (status, headers and body; a 5xx or 429 is not kept) and changes nothing. The same key with another ' +
        'request is 422; while the first still runs, 409 with `Retry-After`.',
      schema: { type: 'string', pattern: '^[\\x20-\\x7E]{1,255}$' },
      example: 'b6c1f0e2-6f0d-4c1e-9a57-3d1f2a8e4c55',
    },
    'If-Match': {
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        'Apply only if the stored version is one of these strong entity tags (`"3"`, `"3", "4"`), or `*`: an RFC 9110 list, ' +
        'whose empty elements are ignored. A weak tag (`W/"3"`) never matches, and a list with no tag matches nothing. ' +
        'Otherwise 412, and nothing changes. Malformed is 400.',
      schema: { type: 'string', pattern: IF_MATCH_PATTERN },
      example: '"1"',
    },
  },
  headers: {
    CacheControl: {
      description: 'Responses hold private data: never stored.',
      required: true,
      schema: { type: 'string', enum: ['no-store'] },
    },
    CacheControlIfAny: {
      description: "`no-store` when the service answers; API Gateway's own answers on AWS have none.",
      required: false,
      schema: { type: 'string', enum: ['no-store'] },
    },
    PublicCacheControl: {
      description: 'Public, and the same for everyone: caches may keep it a few minutes.',
      required: true,
      schema: { type: 'string', enum: ['public, max-age=300'] },
    },
    ContentSecurityPolicy: { description: 'The page runs only its own scripts.', required: true, schema: { type: 'string', minLength: 1 } },
    ContentDisposition: {
      description: "Always an attachment, with the document's name (RFC 6266: `filename` and `filename*=UTF-8''…`).",
      required: true,
      schema: { type: 'string', pattern: '^attachment; ' },
    },
    ContentTypeOptions: { description: 'Never sniffed as another type.', required: true, schema: { type: 'string', enum: ['nosniff'] } },
    SandboxPolicy: {
      description: 'Content never acts as a page of the API: no scripts, no same origin.',
      required: true,
      schema: { type: 'string', enum: ['sandbox'] },
    },
    ETag: {
      description: 'The document\'s version as a strong entity tag: `"<version>"`.',
      required: true,
      schema: { type: 'string', pattern: '^"[1-9][0-9]*"$' },
    },
    WWWAuthenticate: {
      description: '`Bearer`, with `error="invalid_token"` when a token was sent but failed verification.',
      required: true,
      schema: { type: 'string', pattern: '^Bearer\\b' },
    },
    PrivateCacheControl: {
      description: 'A share link: kept by no cache.',
      required: true,
      schema: { type: 'string', enum: ['private, no-store'] },
    },
    PrivateCacheControlIfAny: {
      description: "A share link: `private, no-store` when the service answers; API Gateway's own answers on AWS have none.",
      required: false,
      schema: { type: 'string', enum: ['private, no-store'] },
    },
    ReferrerPolicy: {
      description: "A share link's address is never passed on as a referrer. Always sent by the service.",
      required: false,
      schema: { type: 'string', enum: ['no-referrer'] },
    },
    LinkPasswordChallenge: {
      description: 'The link needs its password, in the `Link-Password` header.',
      required: true,
      schema: { type: 'string', enum: ['Link-Password'] },
    },
    RetryAfter: {
      description: "Seconds to wait before retrying. Always sent by the service; API Gateway's own 429 on AWS has none.",
      required: false,
      schema: { type: 'string', pattern: '^[0-9]+$' },
    },
  },
  schemas: {
    ...toComponents(
      {
        ...resources,
        ...Object.fromEntries(
          problemKinds.filter((kind) => kind !== 'method-not-allowed').map((kind) => [problemSchemaName(kind), problemSchema(kind)]),
        ),
        GatewayMessage: gatewayMessageSchema,
      },
      'output',
    ),
    ...toComponents(
      Object.fromEntries(
        routes.flatMap((route) => {
          const body = operations.get(route.name)?.body;
          return body ? [[requestBodyName(route), body]] : [];
        }),
      ),
      'input',
    ),
  },
  responses: Object.fromEntries(errorResponses.map((response) => [response.name, errorResponse(response)])),
});

const description = `The HTTP contract of the documents service: repositories, folders and UTF-8 text documents.

- **Authentication.** Every operation needs \`Authorization: Bearer <JWT>\` except those marked public (this reference).
- **Errors** are [RFC 9457](https://www.rfc-editor.org/rfc/rfc9457) \`application/problem+json\` with a stable \`type\` per kind
  (\`urn:problem-type:documents:<kind>\`); validation errors list each field in \`errors[]\`.
  On AWS, API Gateway answers some requests itself (401 from its JWT authorizer, 429 when it throttles, 413 over 10 MB,
  500/503 when a function fails): those bodies are \`application/json\` \`{"message": "..."}\`.
- **Lists** are pages: \`limit\` (1–100, default 50) and the \`nextToken\` of the previous page; ordered by name,
  case-insensitively. An altered token, or one from another list, is 400.
- **Concurrency.** Documents carry \`ETag: "<version>"\`; send it back in \`If-Match\` (or \`version\`) to update or
  delete only that version (412 otherwise).
- **Unknown routes.** A path no operation has is 404; a known path with another method is 405 with \`Allow\`
  (\`x-default-route\`). Neither needs a token.`;

export function buildOpenApiDocument(operations: Operations): Json {
  const parameters = new Parameters();
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const spec = operations.get(route.name);
    if (!spec) throw new Error(`Route ${route.name} (${route.method} ${route.path}) has no operation`);
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route, spec, parameters) };
  }
  const builtComponents = components(parameters, operations);
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Documents service API',
      version: packageJson.version,
      summary: 'Repositories, folders and documents over REST.',
      description,
    },
    servers: [{ url: '/', description: "The host serving this document (locally `http://127.0.0.1:3000`; on AWS the HTTP API's URL)." }],
    security: [{ bearerAuth: [] }],
    tags: (Object.keys(tags) as Tag[]).map((name) => ({ name, description: tags[name] })),
    paths,
    components: builtComponents,
    'x-default-route': {
      description: "What API Gateway's `$default` route answers for a request no operation matches. Public.",
      responses: {
        '404': { $ref: responseRef('NotFound'), description: 'No operation has this path.' },
        '405': methodNotAllowed(),
      },
    },
  };
  // A shared error response no operation answers with (every 409 may be a kind of its own) is left out.
  const referenced = JSON.stringify([paths, document['x-default-route']]);
  builtComponents.responses = Object.fromEntries(
    Object.entries(builtComponents.responses).filter(([name]) => referenced.includes(`"${responseRef(name)}"`)),
  );
  return document;
}
