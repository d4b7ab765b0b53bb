/**
 * `Idempotency-Key` on POST, PUT and DELETE (docs/api.md: Retries): a repeat of a request with
 * the same key, by the same user, within 24 hours, gets the first answer again (status, headers
 * and body) and changes nothing; the same key with another request is 422; while the first is
 * still running, a repeat is 409. Powertools for AWS Lambda's idempotency utility does the work
 * (its middy middleware and DynamoDB persistence layer), in the service's own table:
 *
 * - a record per user and key, `IDEMPOTENCY#<hash>` (not one partition for all: Powertools'
 *   default with a sort key would put every record of the service in one partition key);
 * - the first answer is stored for 2xx and 4xx (a 409 or 412 is the answer to that request); a
 *   5xx or 429 is not, so a retry after one really runs again;
 * - stored answers are brotli-compressed: a document's body may pass DynamoDB's 400 KB item
 *   limit as JSON, never compressed;
 * - records expire through the table's TTL attribute.
 *
 * A request without a key never reaches Powertools (its key expression would find none and let
 * it through, after evaluating its JMESPath on every write): `takesKey` decides that first.
 */
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { dynamodb, tableName } from '../db/client';
import { invalidField, unavailable } from '../errors';
import { TableIdempotencyStore } from '../items/idempotency';
import { logger } from '../logger';

export const IDEMPOTENCY_HOURS = 24;
/** 1–255 printable ASCII characters (docs/api.md). */
const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

/** The key's format, checked before anything else of idempotency (a bad key is 400, and stores nothing). */
const keyFormat = (): MiddlewareObj<APIGatewayProxyEventV2> => ({
  before: ({ event }) => {
    const key = event.headers?.['idempotency-key'];
    if (key !== undefined && !KEY_FORMAT.test(key)) throw invalidField('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
  },
});

/** What Powertools' key expression selects: a request other than a GET with an Idempotency-Key. */
const takesKey = (event: APIGatewayProxyEventV2) => event.requestContext?.http?.method !== 'GET' && !!event.headers?.['idempotency-key'];

/** The middlewares a write endpoint runs, before its body is parsed (the request as sent is what is compared). */
export function idempotency(): MiddlewareObj<APIGatewayProxyEventV2>[] {
  // Made on the first request, not at import: the table's name is configuration (and the
  // OpenAPI generator imports handler modules without any). Made again if the table or its
  // client changes: a test process runs one local service after another.
  let powertools: { middleware: MiddlewareObj; table: string; client: DynamoDBClient } | undefined;
  const middleware = () => {
    const table = tableName();
    const client = dynamodb();
    if (powertools?.table === table && powertools.client === client) return powertools.middleware;
    powertools = {
      table,
      client,
      middleware: makeHandlerIdempotent({
        persistenceStore: new TableIdempotencyStore({
          tableName: table,
          keyAttr: 'PK',
          expiryAttr: 'expiresAt',
          awsSdkV3Client: client,
        }),
        config: new IdempotencyConfig({
          // Only requests that carry a key, by the caller who sent it; a GET never takes part.
          eventKeyJmesPath:
            'requestContext.http.method != \'GET\' && headers."idempotency-key" && [requestContext.authorizer.jwt.claims.sub, headers."idempotency-key"]',
          // "The same request": method, path, query, If-Match and the body as sent.
          payloadValidationJmesPath: '[requestContext.http.method, rawPath, rawQueryString, headers."if-match", body]',
          throwOnNoIdempotencyKey: false,
          expiresAfterSeconds: IDEMPOTENCY_HOURS * 60 * 60,
          hashFunction: 'sha256',
        }),
        // One prefix for every function: a key used on one endpoint and then on another is "another request" (422).
        keyPrefix: 'documents',
      }),
    };
    return powertools.middleware;
  };
  return [
    keyFormat(),
    {
      before: async (request) => {
        if (!takesKey(request.event)) return undefined;
        // The request as sent: the JSON parser after this replaces the event's body with the
        // parsed value, and Powertools hashes its event again when it stores the answer.
        let answer: unknown;
        try {
          answer = await middleware().before?.({ ...request, event: { ...request.event } });
        } catch (error) {
          // A repeat's answers (409 in progress, 422 another request) pass; the store failing
          // to claim the key is a 503: nothing ran, so a retry is safe.
          if (isStoreFailure(error)) throw unavailableStore(error, 'claim');
          throw error;
        }
        if (answer === undefined) (request.internal as Record<string, unknown>)[RUNS_THIS_KEY] = true;
        return answer;
      },
      after: async (request) => {
        if (!takesKey(request.event)) return;
        try {
          await middleware().after?.(request);
        } catch (error) {
          // The write is done and its answer goes out. The key stays "in progress" until its
          // in-progress expiry (the function's remaining time): a repeat meanwhile gets 409, not
          // a second run. Releasing it instead would let a retry do the write again.
          logger.error('could not store the answer of an Idempotency-Key', { error: error as Error });
        }
      },
      // Only the request that holds the key's in-progress record may drop it: Powertools would
      // also delete the stored first answer when it refuses a repeat (422, 409) in `before`.
      // A failure to drop it never replaces the request's own error (a thrown onError would
      // crash the function): the record then expires with the function's remaining time.
      onError: async (request) => {
        if (!(request.internal as Record<string, unknown>)[RUNS_THIS_KEY]) return;
        try {
          await middleware().onError?.(request);
        } catch (error) {
          logger.error('could not release an Idempotency-Key after a failed request', { error: error as Error });
        }
      },
    },
  ];
}

/** Powertools' own failures talking to the table (its validation and in-progress errors are answers, not failures). */
const isStoreFailure = (error: unknown) =>
  error instanceof Error && (error.name === 'IdempotencyPersistenceLayerError' || error.name === 'IdempotencyUnknownError');

function unavailableStore(error: unknown, step: string) {
  logger.error(`could not ${step} an Idempotency-Key`, { error: error as Error });
  return unavailable('The service could not record this Idempotency-Key; retry shortly with the same key.');
}

const RUNS_THIS_KEY = 'documents.idempotency.runsThisKey';
