/**
 * Functions run locally under their deployed timeouts (lib/local/invoke.ts): the worker, fed by
 * the stream feeder as the event source mapping feeds it, is cut off at its timeout like any
 * failed invocation, and the mapping's retries run; a handler that budgets its work with
 * `getRemainingTimeInMillis()` stops itself in time and its batch goes through. Against
 * DynamoDB Local's stream, with the worker's timeout lowered to 300 ms (LOCAL_FUNCTION_TIMEOUTS_MS).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workerFunction } from '#functions/routes';
import { timeoutSecondsOf, workerTimeoutSeconds } from '#lib/function-settings';
import { localClient } from '#lib/local/dynamodb-local';
import { FunctionTimedOut, invokeFunction, timeoutMsOf } from '#lib/local/invoke';
import { type StreamFeeder, startStreamFeeder } from '#lib/local/stream-feeder';
import { createTestTable } from '#test/support/dynamodb';

const TIMEOUT_MS = 300;
let endpoint: string;
let tableName: string;
let feeder: StreamFeeder | undefined;

beforeEach(async () => {
  ({ endpoint, tableName } = await createTestTable());
  process.env.LOCAL_FUNCTION_TIMEOUTS_MS = JSON.stringify({ [workerFunction.name]: TIMEOUT_MS });
});
afterEach(async () => {
  delete process.env.LOCAL_FUNCTION_TIMEOUTS_MS;
  await feeder?.stop();
  feeder = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function writeTask(id: string): Promise<void> {
  const client = localClient(endpoint);
  try {
    await client.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: `TASK#${id}` }, SK: { S: 'TASK' }, id: { S: id } } }));
  } finally {
    client.destroy();
  }
}

/** A feeder that invokes `work` as the worker (under its timeout); resolves with what it gave up on. */
async function feederOf(work: (event: DynamoDBStreamEvent, context: Context) => Promise<void>) {
  const results: ('done' | 'timed out' | 'failed')[] = [];
  let resolveGivenUp: (value: { records: readonly DynamoDBRecord[]; reason: string }) => void;
  const givenUp = new Promise<{ records: readonly DynamoDBRecord[]; reason: string }>((resolve) => {
    resolveGivenUp = resolve;
  });
  let resolveDone: () => void;
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  const client = localClient(endpoint);
  try {
    feeder = await startStreamFeeder(
      {
        endpoint,
        tableName,
        retryAttempts: 3,
        retryBackoffMs: 1,
        handler: async () => async (event) => {
          try {
            await invokeFunction(workerFunction, work, event);
            results.push('done');
            resolveDone();
            return { batchItemFailures: [] };
          } catch (error) {
            results.push(error instanceof FunctionTimedOut ? 'timed out' : 'failed');
            throw error;
          }
        },
        onFailure: (records, reason) => resolveGivenUp({ records, reason }),
      },
      client,
    );
  } finally {
    client.destroy();
  }
  return { results, givenUp, done };
}

describe('functions under their deployed timeouts', () => {
  it('gives each function its deployed timeout (lib/function-settings.ts), lowered only where a test says', () => {
    delete process.env.LOCAL_FUNCTION_TIMEOUTS_MS;
    expect(timeoutMsOf(workerFunction.name)).toBe(workerTimeoutSeconds * 1_000);
    expect(timeoutMsOf('GetDocument')).toBe(timeoutSecondsOf('GetDocument') * 1_000);
    expect(timeoutMsOf('GetDocument')).toBe(20_000);
  });

  it('cuts off a worker that ignores its budget, as Lambda does, and the mapping retries it until it gives up', async () => {
    const { results, givenUp } = await feederOf(async () => {
      await sleep(TIMEOUT_MS * 2); // works on, whatever time is left
    });
    await writeTask('ignores');
    const { records, reason } = await givenUp;
    expect(records.map((r) => r.dynamodb?.Keys?.PK?.S)).toEqual(['TASK#ignores']);
    expect(reason).toMatch(/Worker: Task timed out after 0.30 seconds \(after 3 retries\)/);
    expect(results).toEqual(['timed out', 'timed out', 'timed out', 'timed out']);
  });

  it('lets a worker that budgets with getRemainingTimeInMillis finish in time', async () => {
    const slices: number[] = [];
    const { results, done } = await feederOf(async (_event, context) => {
      // The same work, in slices, stopping while there is time left to report.
      for (let slice = 0; slice < 10 && context.getRemainingTimeInMillis() > 100; slice++) {
        await sleep(TIMEOUT_MS / 5);
        slices.push(slice);
      }
    });
    await writeTask('budgets');
    await done;
    expect(results).toEqual(['done']);
    expect(slices.length).toBeGreaterThan(0);
    expect(slices.length).toBeLessThan(10);
  });
});
