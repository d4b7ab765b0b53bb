/** One structured JSON logger for every function (Powertools); LOG_LEVEL sets its level. */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: 'documents' });
