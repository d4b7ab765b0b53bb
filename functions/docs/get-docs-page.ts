/** GET /docs — the human-readable API reference (Swagger UI reading /openapi.json). */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { CONTENT_SECURITY_POLICY, PUBLIC_CACHE, pageHtml } from './page';

export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': PUBLIC_CACHE,
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  },
  body: pageHtml,
});
