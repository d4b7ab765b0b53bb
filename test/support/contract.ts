/**
 * Checks an HTTP exchange against openapi.json with a standard JSON Schema validator (Ajv,
 * draft 2020-12, OpenAPI 3.1's dialect): the status must be documented for the operation,
 * every documented header must be present when required and valid, no undocumented header
 * may appear, the media type must be documented, and the body must match its schema (which
 * is strict: `additionalProperties: false` where the contract fixes the fields).
 *
 * A request no operation matches is held to `x-default-route` (404, or 405 for a known path).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type HttpMethod, matchPath, type Route } from '#functions/routes';
import openapi from '#openapi.json' with { type: 'json' };
import { contractStats } from './route-coverage';

type Json = Record<string, unknown>;

/** Headers of HTTP itself, and the one API Gateway adds to every answer: not the API's to document. */
const TRANSPORT_HEADERS = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'apigw-requestid']);

const DOCUMENT_ID = 'openapi.json';
// ajv-formats is CommonJS with `exports.default`; under ESM interop either shape may arrive.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as typeof addFormatsModule;
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
// The document's own top-level fields are not JSON Schema keywords; let Ajv hold it whole so
// `$ref`s between components resolve exactly as written.
ajv.addVocabulary(Object.keys(openapi));
ajv.addSchema(openapi, DOCUMENT_ID);

const validators = new Map<string, ValidateFunction>();
function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** The node at a JSON pointer (`/paths/~1document/put`) in openapi.json. */
function pointerGet(pointer: string): Json {
  return pointer
    .slice(1)
    .split('/')
    .reduce<unknown>((at, segment) => (at as Json | undefined)?.[segment.replaceAll('~1', '/').replaceAll('~0', '~')], openapi) as Json;
}

/** Follows an OpenAPI `$ref` (keeping a sibling `description`, as 3.1 allows) and tracks where it lands. */
function resolve(node: Json, pointer: string): { node: Json; pointer: string } {
  const ref = node.$ref;
  if (typeof ref !== 'string') return { node, pointer };
  if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`);
  const target = pointerGet(ref.slice(1));
  if (!target) throw new Error(`openapi.json: dangling $ref ${ref}`);
  return resolve(target, ref.slice(1));
}

/** The documented operations as route-table entries, so paths match as API Gateway matches them. */
const operations: Route[] = Object.entries(openapi.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
  Object.keys(item).map((method) => ({
    name: `${method} ${path}`,
    method: method.toUpperCase() as HttpMethod,
    path,
    handler: '',
    dynamodb: [],
  })),
);

/** The responses object that applies to a request, and where it is in the document. */
function responsesFor(method: string, path: string): { responses: Json; pointer: string; operation: string } {
  const match = matchPath(
    operations.filter((o) => o.method === method.toUpperCase()),
    path,
  );
  if (match) {
    const { path: template, method: m } = match.route;
    const pointer = `/paths/${escapePointer(template)}/${m.toLowerCase()}/responses`;
    return { responses: pointerGet(pointer), pointer, operation: `${m} ${template}` };
  }
  const known = matchPath(operations, path) !== undefined;
  const fallback = (openapi as Json)['x-default-route'] as { responses: Json };
  const only = known ? '405' : '404';
  return { responses: { [only]: fallback.responses[only] }, pointer: '/x-default-route/responses', operation: '$default' };
}

export interface Exchange {
  method: string;
  /** Path only (no query), as sent. */
  path: string;
  status: number;
  headers: Headers;
  body: string;
}

/** Everything about the exchange that openapi.json does not allow; empty when it keeps the contract. */
export function contractViolations(exchange: Exchange): string[] {
  const { responses, pointer, operation } = responsesFor(exchange.method, exchange.path);
  const status = String(exchange.status);
  if (!(status in responses))
    return [`${operation}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
  const { node: response, pointer: at } = resolve(responses[status] as Json, `${pointer}/${status}`);
  const problems: string[] = [];

  // Headers: documented ones present when required and valid; nothing undocumented.
  const documented = new Map<string, { node: Json; pointer: string }>();
  for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    documented.set(name.toLowerCase(), resolve(header, `${at}/headers/${escapePointer(name)}`));
  }
  for (const [name, { node, pointer: headerAt }] of documented) {
    const value = exchange.headers.get(name);
    if (value === null) {
      if (node.required === true) problems.push(`header ${name} is required`);
      continue;
    }
    const validate = validatorAt(`${headerAt}/schema`);
    if (!validate(value)) problems.push(`header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
  }
  for (const [name] of exchange.headers) {
    if (name !== 'content-type' && !TRANSPORT_HEADERS.has(name) && !documented.has(name)) problems.push(`header ${name} is not documented`);
  }

  // Body: empty when no content is documented; else a documented media type matching its schema.
  const content = response.content as Record<string, unknown> | undefined;
  if (!content) {
    if (exchange.body !== '') problems.push(`a body was sent, but none is documented`);
    return problems;
  }
  const contentType = exchange.headers.get('content-type');
  // Content served as it was written (`*/*`: a document's bytes) is whatever type it says, and not parsed.
  if ('*/*' in content) return contentType ? problems : [...problems, 'a body was sent without a media type'];
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (!mediaType || !(mediaType in content)) {
    problems.push(`media type ${JSON.stringify(contentType)} is not documented (documented: ${Object.keys(content).join(', ')})`);
    return problems;
  }
  let body: unknown = exchange.body;
  if (/^application\/(?:.+\+)?json$/.test(mediaType)) {
    try {
      body = JSON.parse(exchange.body);
    } catch {
      return [...problems, `the ${mediaType} body is not JSON`];
    }
  }
  const validate = validatorAt(`${at}/content/${escapePointer(mediaType)}/schema`);
  if (!validate(body)) problems.push(`body: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
  return problems;
}

/** The operation a request is answered by (`GET /{id}`; `$default` when none matches). */
export const operationOf = (method: string, path: string): string => responsesFor(method, path).operation;

/** Throws, with the whole exchange, unless it keeps the contract. */
export function assertKeepsContract(exchange: Exchange): void {
  const problems = contractViolations(exchange);
  if (problems.length > 0) {
    throw new Error(
      `${exchange.method} ${exchange.path} → ${exchange.status} breaks openapi.json:\n  - ${problems.join('\n  - ')}\n` +
        `  body: ${exchange.body.slice(0, 500)}`,
    );
  }
  contractStats.validated++;
  const { operation } = responsesFor(exchange.method, exchange.path);
  const statuses = contractStats.answered.get(operation) ?? new Set<number>();
  contractStats.answered.set(operation, statuses.add(exchange.status));
}
