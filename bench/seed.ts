/**
 * Many documents, exactly as the store writes them, fast: the store's own createDocument runs
 * with its transaction captured instead of sent, and the items it would put are written 25 to
 * a BatchWriteItem. One transaction per document would take minutes for the 50,000 of the
 * scale scenario. Runs in the service process, on the handlers' client.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { BatchWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, type Item, tableName } from '#core/db/client';
import { createDocument } from '#core/items/document';
import type { Caller } from '#core/resources';

/** The content of every document the bench makes. */
export const oneKb = (fill = 'x') => fill.repeat(1024);

const captured = new AsyncLocalStorage<Item[]>();
const CAPTURE = 'benchSeedCapture';

/**
 * `count` documents of 1 KB named `<prefix><n>` (zero-padded, so they list in order), in `folderId`
 * (or, given a function, the nth in the folder it names); returns their ids.
 */
export async function seedDocuments(
  caller: Caller,
  folderId: string | ((n: number) => string),
  count: number,
  prefix: string,
): Promise<string[]> {
  const folderOf = typeof folderId === 'string' ? () => folderId : folderId;
  const ids: string[] = [];
  let writing = Promise.resolve();
  // Only while seeding: measured runs see the client as the handlers have it.
  // Inside `captured.run`, a transaction is kept instead of sent, and answers success.
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const into = captured.getStore();
      if (!into || context.commandName !== 'TransactWriteItemsCommand') return next(args);
      for (const action of (args.input as TransactWriteCommandInput).TransactItems ?? []) {
        if (action.Update || action.Delete) throw new Error('bench/seed.ts: a create that updates or deletes cannot be bulk-written');
        if (action.Put) into.push(action.Put.Item!);
      }
      return { output: { $metadata: {} }, response: {} } as any;
    },
    { step: 'initialize', name: CAPTURE },
  );
  try {
    // A thousand at a time (the items of 50,000 would hold ~130 MB), each written while the next is made.
    for (let start = 0; start < count; start += 1000) {
      const items: Item[] = [];
      await captured.run(items, async () => {
        for (let n = start; n < Math.min(count, start + 1000); n++) {
          const name = `${prefix}${String(n).padStart(6, '0')}`;
          ids.push((await createDocument(caller, { folderId: folderOf(n), name, content: oneKb(), contentType: 'text/plain' })).id);
        }
      });
      await writing;
      writing = writeAll(items);
    }
    await writing;
  } finally {
    db().middlewareStack.remove(CAPTURE);
  }
  return ids;
}

async function writeAll(items: Item[], inFlight = 8): Promise<void> {
  const batches: Item[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  const worker = async () => {
    for (let batch = batches.pop(); batch; batch = batches.pop()) {
      let pending: object[] = batch.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
        pending = result.UnprocessedItems?.[tableName()] ?? [];
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}
