/**
 * API Gateway's `$default` route: a request no route matched. A known path asked with
 * another method is 405 with `Allow`; anything else is 404. Public: needs no token.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { HttpError, problemResponse } from './core/errors';
import { allowedMethods } from './routes';

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const path = event.rawPath;
  const allowed = allowedMethods(path);
  if (allowed.length === 0) return problemResponse(new HttpError('not-found', `No resource at ${path}.`));
  return problemResponse(
    new HttpError('method-not-allowed', `${event.requestContext.http.method} is not allowed on ${path}.`, {
      headers: { Allow: allowed.join(', ') },
    }),
  );
};
