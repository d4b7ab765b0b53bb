/** Cold-start reference: middy and its JSON body parser. */
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';

export const handler = middy()
  .use(httpJsonBodyParser())
  .handler(async () => ({ statusCode: 204 }));
