/** Cold-start reference: the Powertools logger and its middy middleware, as functions/core uses them. */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '#core/logger';

export const handler = async () => [logger, injectLambdaContext];
