/**
 * The local bucket's CORS, exactly the deployed bucket's: the rules come from `corsRules`
 * (lib/bucket.ts), which the stack uses too (lib/stack/file-bucket.ts), for the origins of the
 * deployment environment the local service stands for (cdk.json, `context.environments`, read
 * with the stack's own `readConfig`). So an origin the deployed bucket would refuse is refused
 * here, and no rule at all (the committed environments have `corsOrigins: []`) means every
 * preflight is refused, as S3 refuses it.
 *
 * Preflights (`OPTIONS`, unsigned on S3 too) are answered here as S3 answers them (S3 user guide,
 * "Elements of a CORS configuration" and "How Amazon S3 evaluates the CORS configuration"): the
 * first rule whose origin, method and every requested header match; the origin echoed. s3rver
 * answered `Access-Control-Allow-Origin: *` whatever the rule and sent no `Max-Age`.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type CorsRule, corsRules } from '#lib/bucket';
import { readConfig } from '#lib/stack/config';
import { S3Refusal } from './s3-signature';

const cdkJson = fileURLToPath(new URL('../../cdk.json', import.meta.url));

/** The environment the local service stands for: `DEPLOY_ENV`, default `dev`. */
export const localEnvironment = (environment = process.env): string => environment.DEPLOY_ENV || 'dev';

/** The CORS rules the deployed bucket of environment `name` has (cdk.json, read as the stack reads it). */
export function deployedCorsRules(name: string = localEnvironment()): readonly CorsRule[] {
  const context = (JSON.parse(readFileSync(cdkJson, 'utf8')) as { context?: Record<string, unknown> }).context ?? {};
  const config = readConfig((key) => (key === 'env' ? name : context[key]));
  return corsRules(config.corsOrigins);
}

/** `*` in an origin or header pattern matches any run of characters (S3 allows one). */
const matches = (pattern: string, value: string) => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 'i').test(value);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The rule that allows this origin, method and headers, if one does. */
export function matchingRule(rules: readonly CorsRule[], origin: string, method: string, headers: readonly string[]): CorsRule | undefined {
  return rules.find(
    (rule) =>
      rule.allowedOrigins.some((pattern) => matches(pattern, origin)) &&
      (rule.allowedMethods as readonly string[]).includes(method) &&
      headers.every((name) => rule.allowedHeaders.some((pattern) => matches(pattern, name))),
  );
}

/** Answers a CORS preflight as S3 does, or throws S3's refusal. */
export function answerPreflight(req: IncomingMessage, res: ServerResponse, rules: readonly CorsRule[]): void {
  const origin = req.headers.origin;
  const method = req.headers['access-control-request-method'];
  if (!origin) throw new S3Refusal('BadRequest', 'Insufficient information. Origin request header needed.', 400);
  if (typeof method !== 'string' || method === '') throw new S3Refusal('BadRequest', 'Invalid Access-Control-Request-Method: null', 400);
  if (rules.length === 0) throw new S3Refusal('CORSResponse', 'CORS is not enabled for this bucket.', 403);
  const requested = String(req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const rule = matchingRule(rules, origin, method, requested);
  if (!rule) {
    throw new S3Refusal(
      'CORSResponse',
      'This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource’s CORS spec.',
      403,
    );
  }
  const wildcard = rule.allowedOrigins.includes('*');
  req.resume();
  res
    .writeHead(200, {
      'access-control-allow-origin': wildcard ? '*' : origin,
      'access-control-allow-methods': rule.allowedMethods.join(', '),
      ...(requested.length > 0 ? { 'access-control-allow-headers': requested.join(', ') } : {}),
      ...(rule.exposedHeaders.length > 0 ? { 'access-control-expose-headers': rule.exposedHeaders.join(', ') } : {}),
      'access-control-max-age': String(rule.maxAgeSeconds),
      ...(wildcard ? {} : { 'access-control-allow-credentials': 'true' }),
      vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
      'content-length': '0',
    })
    .end();
}

/** The rules as a CORSConfiguration document (PutBucketCors), for s3rver to decorate the answers to allowed origins. */
export function corsXml(rules: readonly CorsRule[], namespace: string): string {
  const escapeXml = (value: string) => value.replace(/[<>&]/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[ch]!);
  return [
    `<CORSConfiguration xmlns="${namespace}">`,
    ...rules.map((rule) =>
      [
        '<CORSRule>',
        ...rule.allowedOrigins.map((origin) => `<AllowedOrigin>${escapeXml(origin)}</AllowedOrigin>`),
        ...rule.allowedMethods.map((method) => `<AllowedMethod>${method}</AllowedMethod>`),
        ...rule.allowedHeaders.map((name) => `<AllowedHeader>${escapeXml(name)}</AllowedHeader>`),
        ...rule.exposedHeaders.map((name) => `<ExposeHeader>${escapeXml(name)}</ExposeHeader>`),
        `<MaxAgeSeconds>${rule.maxAgeSeconds}</MaxAgeSeconds>`,
        '</CORSRule>',
      ].join(''),
    ),
    '</CORSConfiguration>',
  ].join('');
}
