/** GET /openapi.json — the API's OpenAPI 3.1 document, as committed (bundled into the code). */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import document from '#openapi.json' with { type: 'json' };
import { PUBLIC_CACHE } from './page';

const body = JSON.stringify(document);

export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': PUBLIC_CACHE },
  body,
});
