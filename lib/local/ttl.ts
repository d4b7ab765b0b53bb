/**
 * DynamoDB's Time to Live, where DynamoDB Local's falls short. Its own TTL never deletes an
 * expired item that a sparse secondary index leaves out: with the sweep index (lib/table.ts), an
 * expired item with the index's keys was gone within 5 s, one without them was still there after
 * 40 s — and trash records, changes, upload and idempotency records are all without them. So the
 * local runtime deletes those itself, as DynamoDB would: a while after they expire (on AWS
 * typically within a few days; here within `everyMs`), each only if it is still the item that
 * expired.
 *
 * DynamoDB writes such a deletion to the stream as REMOVE by its service principal, which is what
 * the worker acts on (functions/worker/filters.ts); the stream feeder (./stream-feeder.ts) marks
 * ours so through `TtlDeletions`. An entry is written down before its delete and forgotten once the
 * feeder has checkpointed past its record, in a file beside the feeder's checkpoint: a restart
 * between the delete and its record loses nothing, and an entry whose delete never happened is
 * dropped at start (the item is still there), so no later REMOVE of that key is taken for TTL's.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { DeleteItemCommand, type DynamoDBClient, GetItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { sweepIndex } from '#core/items/task';
import { tableDefinition } from '#lib/table';

const TTL = tableDefinition.timeToLiveAttribute;
const { partitionKey: PK, sortKey: SK } = tableDefinition;

/** DynamoDB Local's own TTL pass comes every 10 s too. */
export const DEFAULT_TTL_INTERVAL_MS = 10_000;

type Entry = { pk: string; sk: string; expiresAt: string };
const keyOf = (pk: string, sk: string) => JSON.stringify([pk, sk]);

/** The deletions made for TTL whose stream records the feeder has not yet checkpointed past. */
export class TtlDeletions {
  private entries = new Map<string, Entry>();
  constructor(private readonly file: string | undefined) {}

  /** Reads the file; drops each entry whose item is still there (its delete never happened). */
  async load(client: DynamoDBClient, tableName: string): Promise<void> {
    if (!this.file) return;
    let saved: Entry[] = [];
    try {
      saved = JSON.parse(await readFile(this.file, 'utf8')) as Entry[];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const entry of saved) {
      const { Item } = await client.send(
        new GetItemCommand({ TableName: tableName, Key: { [PK]: { S: entry.pk }, [SK]: { S: entry.sk } }, ConsistentRead: true }),
      );
      if (!Item) this.entries.set(keyOf(entry.pk, entry.sk), entry);
    }
    await this.save();
  }

  /** Whether a REMOVE of this key, with this old `expiresAt`, is one of ours. */
  isOurs(pk: string | undefined, sk: string | undefined, expiresAt: string | undefined): boolean {
    if (pk === undefined || sk === undefined) return false;
    return this.entries.get(keyOf(pk, sk))?.expiresAt === expiresAt;
  }

  async add(entry: Entry): Promise<void> {
    this.entries.set(keyOf(entry.pk, entry.sk), entry);
    await this.save();
  }

  /** After the feeder checkpointed past these keys' records (or the delete did not happen). */
  async forget(keys: readonly { pk: string; sk: string }[]): Promise<void> {
    let changed = false;
    for (const { pk, sk } of keys) changed = this.entries.delete(keyOf(pk, sk)) || changed;
    if (changed) await this.save();
  }

  private async save(): Promise<void> {
    if (!this.file) return;
    const temporary = `${this.file}.${process.pid}`;
    await writeFile(temporary, JSON.stringify([...this.entries.values()]));
    await rename(temporary, this.file);
  }
}

/** Every `everyMs`, deletes the expired items DynamoDB Local's TTL leaves (those outside the sweep index). */
export function startLocalTtl(options: {
  client: DynamoDBClient;
  tableName: string;
  deletions: TtlDeletions;
  everyMs: number;
  log: (line: string) => void;
}): { stop(): Promise<void> } {
  const { client, tableName, deletions } = options;
  let stopped = false;
  let pass: Promise<void> = Promise.resolve();

  const deleteExpired = async () => {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: tableName,
          ProjectionExpression: '#pk, #sk, #ttl',
          FilterExpression: '#ttl <= :now AND attribute_not_exists(#shard)',
          ExpressionAttributeNames: { '#pk': PK, '#sk': SK, '#ttl': TTL, '#shard': sweepIndex.partitionKey },
          ExpressionAttributeValues: { ':now': { N: String(Math.floor(Date.now() / 1000)) } },
          ...(startKey ? { ExclusiveStartKey: startKey as never } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        if (stopped) return;
        const entry = { pk: item[PK]!.S!, sk: item[SK]!.S!, expiresAt: item[TTL]!.N! };
        await deletions.add(entry);
        try {
          await client.send(
            new DeleteItemCommand({
              TableName: tableName,
              Key: { [PK]: { S: entry.pk }, [SK]: { S: entry.sk } },
              // Still the item that expired: not rewritten (nor deleted) since the scan.
              ConditionExpression: '#ttl = :expiresAt',
              ExpressionAttributeNames: { '#ttl': TTL },
              ExpressionAttributeValues: { ':expiresAt': { N: entry.expiresAt } },
            }),
          );
        } catch (error) {
          await deletions.forget([entry]);
          if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
        }
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey && !stopped);
  };

  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      pass = deleteExpired()
        .catch((error: unknown) => options.log(`ttl: ${error instanceof Error ? error.message : String(error)}; trying again later`))
        .finally(() => {
          if (!stopped) schedule();
        });
    }, options.everyMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
