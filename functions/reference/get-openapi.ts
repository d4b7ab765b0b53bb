/** GET /openapi.json — the API's OpenAPI 3.1 document, as committed (bundled into the code). */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Operation } from '#core/http/operation';
import document from '#openapi.json' with { type: 'json' };
import { PUBLIC_CACHE } from './page';

export const operation = {
  tag: 'Documentation',
  access: 'public',
  example: { request: () => ({}) },
  summary: 'This API as an OpenAPI 3.1 document',
  success: {
    status: 200,
    description: 'The OpenAPI document (this one).',
    mediaTypes: { 'application/json': { description: 'OpenAPI 3.1' } },
    cacheControl: 'public',
  },
} as const satisfies Operation;

const body = JSON.stringify(document);

export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': PUBLIC_CACHE },
  body,
});
