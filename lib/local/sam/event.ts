/**
 * An HTTP API (payload format 2.0) event for one request, as `sam local generate-event apigateway
 * http-api-proxy` prints one, but for this API: the route key, path parameters, query, headers and
 * body API Gateway would give the function (the local gateway's own translation, ../lambda-event.ts),
 * and, for a user, the JWT authorizer's claims of a local-issuer token and that token in `Authorization`.
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { decodeJwt } from 'jose';
import { buildEvent, resolveRoute } from '../lambda-event';
import { TemplateError } from './template';

export interface EventRequest {
  /** `GET /document/{id}` or `GET /document/d1?x=1`. */
  request: string;
  /** Values for `{name}` segments of the path. */
  pathParams?: Record<string, string>;
  body?: string;
  /** A bearer token (its claims go into the authorizer context). */
  token?: string;
}

export function buildHttpApiEvent({ request, pathParams = {}, body, token }: EventRequest): APIGatewayProxyEventV2WithJWTAuthorizer {
  const match = /^([A-Z]+)\s+(\/\S*)$/.exec(request.trim());
  if (!match) throw new TemplateError(`Give the request as "METHOD /path", e.g. "GET /document/{id}", not ${JSON.stringify(request)}.`);
  const method = match[1]!;
  const url = match[2]!.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = pathParams[name];
    if (value === undefined) throw new TemplateError(`The path has {${name}}: give it with --path-params ${name}=<value>.`);
    return encodeURIComponent(value);
  });
  const resolution = resolveRoute(method, url.split('?')[0]!);
  if (resolution.kind !== 'route') throw new TemplateError(`No route matches ${method} ${url} (API Gateway would send it to $default).`);
  const rawHeaders = ['Host', 'localhost:3000', 'User-Agent', 'npm-run-event', 'Accept', 'application/json'];
  if (body !== undefined) rawHeaders.push('Content-Type', 'application/json');
  if (token) rawHeaders.push('Authorization', `Bearer ${token}`);
  const claims = token && !resolution.route.public ? decodeJwt(token) : undefined;
  return buildEvent({ method, url, rawHeaders, body: Buffer.from(body ?? ''), sourceIp: '127.0.0.1' }, resolution, claims);
}
