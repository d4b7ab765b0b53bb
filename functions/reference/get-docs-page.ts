/** GET /docs — the human-readable API reference (Swagger UI reading /openapi.json). */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Operation } from '#core/http/operation';
import { CONTENT_SECURITY_POLICY, PUBLIC_CACHE, pageHtml } from './page';

export const operation = {
  tag: 'Documentation',
  access: 'public',
  example: { request: () => ({}) },
  summary: 'This reference, for people',
  success: {
    status: 200,
    description: 'An HTML page (Swagger UI) rendering `/openapi.json`.',
    mediaTypes: { 'text/html': {} },
    cacheControl: 'public',
    contentSecurityPolicy: true,
  },
} as const satisfies Operation;

export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': PUBLIC_CACHE,
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  },
  body: pageHtml,
});
