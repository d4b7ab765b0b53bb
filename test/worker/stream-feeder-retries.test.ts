/**
 * The local stream feeder spends retries as the deployed event source mapping does
 * (functions/worker/delivery.ts `streamDelivery`, the numbers the stack configures): a record
 * that keeps failing is tried once and retried `retryAttempts` times, then given up on to the
 * on-failure destination; a record older than the maximum record age is given up on whatever
 * retries are left. Against DynamoDB Local's stream, with a handler that always fails.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { streamDelivery } from '#functions/worker/delivery';
import { localClient } from '#lib/local/dynamodb-local';
import { type StreamFeeder, type StreamFeederOptions, startStreamFeeder } from '#lib/local/stream-feeder';
import { createTestTable } from '#test/support/dynamodb';

let endpoint: string;
let tableName: string;
let feeder: StreamFeeder | undefined;

beforeEach(async () => {
  ({ endpoint, tableName } = await createTestTable());
});
afterEach(async () => {
  await feeder?.stop();
  feeder = undefined;
});

/** A record the worker's filters pass: a task started. */
async function writeTask(id: string): Promise<void> {
  const client = localClient(endpoint);
  try {
    await client.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: `TASK#${id}` }, SK: { S: 'TASK' }, id: { S: id } } }));
  } finally {
    client.destroy();
  }
}

type GivenUp = { records: readonly DynamoDBRecord[]; reason: string };

/**
 * Starts a feeder whose handler fails every record: `givenUp` resolves with the first give-up,
 * `givenUpOn(n)` once `n` records have been given up on, with every give-up so far.
 */
async function failingFeeder(options: Partial<StreamFeederOptions>, fail: 'report' | 'throw') {
  const invocations: number[] = [];
  const gaveUp: GivenUp[] = [];
  const waiting: { count: number; resolve: (all: GivenUp[]) => void }[] = [];
  const onFailure = (records: readonly DynamoDBRecord[], reason: string) => {
    gaveUp.push({ records, reason });
    const count = gaveUp.reduce((sum, g) => sum + g.records.length, 0);
    for (const w of waiting.filter((w) => w.count <= count)) w.resolve([...gaveUp]);
  };
  const givenUpOn = (count: number) => new Promise<GivenUp[]>((resolve) => waiting.push({ count, resolve }));
  const givenUp = givenUpOn(1).then((all) => all[0]!);
  const client = localClient(endpoint);
  try {
    feeder = await startStreamFeeder(
      {
        endpoint,
        tableName,
        handler: async () => async (event) => {
          invocations.push(event.Records.length);
          if (fail === 'throw') throw new Error('the function failed');
          return { batchItemFailures: [{ itemIdentifier: event.Records[0]!.dynamodb!.SequenceNumber! }] };
        },
        onFailure,
        ...options,
      },
      client,
    );
  } finally {
    client.destroy();
  }
  return { invocations, givenUp, givenUpOn };
}

describe('the local stream feeder’s retries', () => {
  it(`tries a failing record once and retries it ${streamDelivery.retryAttempts} times, the deployed mapping’s budget, then gives it up`, async () => {
    const { invocations, givenUp } = await failingFeeder({ retryBackoffMs: 1 }, 'report');
    await writeTask('a');
    const { records, reason } = await givenUp;
    expect(records.map((r) => r.dynamodb?.Keys?.PK?.S)).toEqual(['TASK#a']);
    expect(reason).toMatch(`after ${streamDelivery.retryAttempts} retries`);
    expect(invocations).toHaveLength(1 + streamDelivery.retryAttempts);
  });

  it('bisects a batch whose invocation throws, each half spending a retry, and gives up on every record in the end', async () => {
    await writeTask('b1');
    await writeTask('b2');
    const { invocations, givenUpOn } = await failingFeeder({ retryBackoffMs: 1, retryAttempts: 3 }, 'throw');
    const all = await givenUpOn(2);
    // Each half given up on by itself, each record once.
    expect(all.map((g) => g.records.length)).toEqual([1, 1]);
    expect(all.flatMap((g) => g.records.map((r) => r.dynamodb?.Keys?.PK?.S)).sort()).toEqual(['TASK#b1', 'TASK#b2']);
    for (const { reason } of all) expect(reason).toMatch('after 3 retries');
    // [b1, b2] fails, then [b1] and [b2] (one retry each), each then retried until 3 are spent.
    expect(invocations[0]).toBe(2);
    expect(invocations.slice(1).every((size) => size === 1)).toBe(true);
    expect(invocations).toHaveLength(1 + 3 + 3);
  });

  it('gives up on a record older than the maximum record age without sending it, whatever retries are left', async () => {
    // DynamoDB Local rounds a record's ApproximateCreationDateTime down to the minute: any age limit
    // under a minute may be passed at once, so the smallest one shows it deterministically.
    const { invocations, givenUp } = await failingFeeder(
      { retryBackoffMs: 1, retryAttempts: 10_000, maxRecordAgeSeconds: 0.001 },
      'report',
    );
    await writeTask('c');
    const { records, reason } = await givenUp;
    expect(records.map((r) => r.dynamodb?.Keys?.PK?.S)).toEqual(['TASK#c']);
    expect(reason).toMatch('older than the maximum record age');
    expect(invocations).toEqual([]);
  });
});
