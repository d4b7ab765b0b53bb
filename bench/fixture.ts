/**
 * The data the bench works on, made with the store's own calls in the process that runs the
 * handlers: the fixture every scenario reads (plain ids: it travels over IPC), what the calls of
 * a run change (makeTargets), the life-cycle scenario's trees, and documents in bulk (seedDocuments).
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { BatchWriteCommand, QueryCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, getItems, type Item, tableName } from '#core/db/client';
import { MIN_PART_BYTES } from '#core/files/parts';
import { readChanges } from '#core/items/change';
import { createDocument } from '#core/items/document';
import { createFolder } from '#core/items/folder';
import { documentKey, documentPartition, folderKey, folderPartition, ITEM_SORT_KEY, isPendingChangeKey, type Key } from '#core/items/keys';
import { createLink, openLink } from '#core/items/link';
import { createRepository } from '#core/items/repository';
import type { Caller } from '#core/resources';
import { trashDocument, trashFolder } from '#core/use-cases/trash';
import { startUpload } from '#core/use-cases/uploads';

export interface Fixture {
  caller: Caller;
  repositoryId: string;
  /** A 1 KB document, 99 more and ten sub folders: what the reads read. */
  folderId: string;
  documentId: string;
  /** Where writes go: creates land here; 10 documents deleted from it fill GET /{id}/trash's page. */
  writeFolderId: string;
  /** Where PUT /folder (move) moves folders made in the write folder: beside it, so at the same depth. */
  moveTargetId: string;
  /** Empty until the scale scenario seeds it. */
  bigFolderId: string;
  /** The repository's change feed before any of the fixture's changes (a cursor from `latest`). */
  feedCursor: string;
  /** A share link of the 1 KB document, without a password, and its token. */
  linkId: string;
  linkToken: string;
}

/** The content of every document the bench makes. */
export const oneKb = (fill = 'x') => fill.repeat(1024);
/** The password of the bench's share links that have one. */
export const LINK_PASSWORD = 'bench link password';
/** Text too large for its document item (16 KB): in a content item of its own. */
const LARGE_TEXT = 'x'.repeat(16 * 1024);
let made = 0;
const unique = () => `${process.hrtime.bigint().toString(36)}-${made++}`;
const repository = (caller: Caller, name = `Target ${unique()}`) => createRepository(caller, { name, description: '' });
const folder = async (caller: Caller, parentId: string, name = `Folder ${unique()}`) => (await createFolder(caller, { parentId, name })).id;

export async function makeFixture(caller: Caller): Promise<Fixture> {
  for (const name of ['Archive', 'Zeta']) await repository(caller, name);
  const { id: repositoryId, rootFolderId } = await repository(caller, 'Bench');
  const { cursor: feedCursor } = await readChanges(caller, repositoryId, { cursor: 'latest', limit: 1 });
  const folderId = await folder(caller, rootFolderId, 'Read');
  for (let i = 0; i < 10; i++) await folder(caller, folderId, `Child ${i}`);
  const document = await createDocument(caller, { folderId, name: 'one-kb.txt', content: oneKb(), contentType: 'text/plain' });
  await seedDocuments(caller, folderId, 99, 'listed-');
  const writeFolderId = await folder(caller, rootFolderId, 'Write');
  for (const id of await seedDocuments(caller, writeFolderId, 10, 'trashed-')) await trashDocument(caller, id, {});
  const moveTargetId = await folder(caller, rootFolderId, 'Moved here');
  const bigFolderId = await folder(caller, rootFolderId, 'Big');
  const link = await createLink(caller, document.id, {}, 'http://bench');
  return {
    caller,
    repositoryId,
    folderId,
    documentId: document.id,
    writeFolderId,
    moveTargetId,
    bigFolderId,
    feedCursor,
    linkId: link.id,
    linkToken: link.token!,
  };
}

/** What one call of an endpoint changes (endpoints.ts: `targets`), made with the store's own calls, in the write folder. */
function makers({ caller, writeFolderId, documentId }: Fixture) {
  const document = async (folderId = writeFolderId) => (await seedDocuments(caller, folderId, 1, `t${unique()}-`))[0]!;
  const largeText = async () =>
    (
      await createDocument(caller, {
        folderId: writeFolderId,
        name: `large-${unique()}.txt`,
        content: LARGE_TEXT,
        contentType: 'text/plain',
      })
    ).id;
  /** A share link's token: of the 1 KB document or of large text; with LINK_PASSWORD; opened once (`lastUsedAt` fresh for a minute). */
  const linkToken = (options: { large?: true; password?: true; opened?: true }) => async () => {
    const password = options.password ? LINK_PASSWORD : undefined;
    const link = await createLink(caller, options.large ? await largeText() : documentId, { password }, 'http://bench');
    if (options.opened) await openLink(link.token!, password, { content: false });
    return link.token!;
  };
  const folderWithDocument = async () => {
    const id = await folder(caller, writeFolderId);
    await document(id);
    return id;
  };
  const trashed = (make: () => Promise<string>, trash: (id: string) => Promise<unknown>) => async () => {
    const id = await make();
    await trash(id);
    return id;
  };
  return {
    document,
    repository: async () => (await repository(caller)).id,
    folder: () => folder(caller, writeFolderId),
    'folder with a document': folderWithDocument,
    'trashed document': trashed(document, (id) => trashDocument(caller, id, {})),
    'trashed folder': trashed(folderWithDocument, (id) => trashFolder(caller, id, {}, { recursive: true })),
    // An open upload of a small file (the caller's), no byte sent; and one of two parts, both sent,
    // so that `complete` does the whole work (a one-part upload completes on its own when its bytes arrive).
    upload: async () => (await startUpload(caller, { folderId: writeFolderId, name: `Upload ${unique()}`, size: 5 })).id,
    'sent upload': async () => {
      const started = await startUpload(caller, { folderId: writeFolderId, name: `Upload ${unique()}`, size: MIN_PART_BYTES + 1 });
      const parts = [Buffer.alloc(MIN_PART_BYTES), Buffer.alloc(1)];
      await Promise.all((started.parts ?? []).map((part, i) => fetch(part.url, { method: 'PUT', body: parts[i] })));
      return started.id;
    },
    link: async () => (await createLink(caller, documentId, {}, 'http://bench')).id,
    'link token': linkToken({}),
    'opened link token': linkToken({ opened: true }),
    'password link token': linkToken({ password: true }),
    'opened password link token': linkToken({ password: true, opened: true }),
    'opened large text link token': linkToken({ large: true, opened: true }),
    'opened large text password link token': linkToken({ large: true, password: true, opened: true }),
    'repository with a trashed document': trashed(
      async () => (await repository(caller)).id,
      async (id) => trashDocument(caller, await document(id), {}),
    ),
  };
}
export type TargetKind = keyof ReturnType<typeof makers>;

/** `count` targets of `kind`; their ids (documents seeded in bulk). */
export async function makeTargets(f: Fixture, kind: TargetKind, count: number): Promise<string[]> {
  if (kind === 'document') return seedDocuments(f.caller, f.writeFolderId, count, `t${unique()}-`);
  const ids: string[] = [];
  for (let n = 0; n < count; n++) ids.push(await makers(f)[kind]());
  return ids;
}

/**
 * A tree of the life-cycle scenario, in a repository of its own: two folders side by side under
 * the root (`parents`), and in the first the tree (`root`: `fanOut` sub folders, `levels` deep,
 * each leaf holding `perLeaf` 1 KB documents) and an empty folder (`empty`).
 */
export interface Tree {
  repositoryId: string;
  parents: [string, string];
  root: string;
  empty: string;
  /** Below the root. */
  folders: string[];
  documents: string[];
}

export async function makeTree(caller: Caller, name: string, shape: { levels: number; fanOut: number; perLeaf: number }): Promise<Tree> {
  const { id: repositoryId, rootFolderId } = await repository(caller, name);
  const parents: [string, string] = [await folder(caller, rootFolderId, 'Left'), await folder(caller, rootFolderId, 'Right')];
  const root = await folder(caller, parents[0], 'Tree');
  const empty = await folder(caller, parents[0], 'Empty');
  const folders: string[] = [];
  let leaves = [root];
  for (let level = 0; level < shape.levels; level++) {
    const next: string[] = [];
    for (const parentId of leaves)
      for (let i = 0; i < shape.fanOut; i++) next.push(await folder(caller, parentId, `Level ${level + 1} ${i}`));
    folders.push(...next);
    leaves = next;
  }
  const documents = await seedDocuments(caller, (n) => leaves[Math.floor(n / shape.perLeaf)]!, leaves.length * shape.perLeaf, 'doc-');
  return { repositoryId, parents, root, empty, folders, documents };
}

/**
 * Where a tree's items are: its root, the folders and the documents below it, each `marked` (in
 * the trash), `clear` or `gone`; with `leftovers`, also the items left in their partitions.
 */
export async function treeState(tree: Tree, options: { leftovers?: boolean } = {}) {
  const marks = async (keys: Key[]) => {
    const found: (Item | undefined)[] = [];
    for (let i = 0; i < keys.length; i += 100) found.push(...keys.slice(i, i + 100).map(await getItems(keys.slice(i, i + 100))));
    const count = (test: (item: Item | undefined) => boolean) => found.filter(test).length;
    return {
      marked: count((i) => i?.trash !== undefined),
      clear: count((i) => i !== undefined && i.trash === undefined),
      gone: count((i) => !i),
    };
  };
  const state = {
    root: await marks([folderKey(tree.root)]),
    folders: await marks(tree.folders.map(folderKey)),
    documents: await marks(tree.documents.map(documentKey)),
    leftovers: 0,
  };
  if (!options.leftovers) return state;
  const partitions = [...[tree.root, ...tree.folders].map(folderPartition), ...tree.documents.map(documentPartition)];
  const count = async (PK: string) => {
    const query = {
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': PK },
      Select: 'COUNT' as const,
    };
    state.leftovers += (await db().send(new QueryCommand(query))).Count ?? 0;
  };
  for (let i = 0; i < partitions.length; i += 16) await Promise.all(partitions.slice(i, i + 16).map(count));
  return state;
}

/** The sharing scenario's seeding, with the store's own calls: a repository with a 1 KB document, a member added. */
export async function repositoryWithDocument(caller: Caller, name: string) {
  const { id, rootFolderId } = await repository(caller, name);
  return {
    id,
    documentId: (await createDocument(caller, { folderId: rootFolderId, name: 'one-kb.txt', content: oneKb(), contentType: 'text/plain' }))
      .id,
  };
}
export const newRepository = (caller: Caller, name: string) => repository(caller, name);

const captured = new AsyncLocalStorage<Item[]>();
const CAPTURE = 'benchSeedCapture';

/**
 * `count` documents of 1 KB named `<prefix><n>` (zero-padded, so they list in order) in `folderId`
 * (given a function, the nth in the folder it names); their ids. Fast, and exactly as the store
 * writes them: its own createDocument runs with its transaction captured instead of sent, and
 * the items it would put are written 25 to a BatchWriteItem (one transaction each would take
 * minutes for the scale scenario's 50,000).
 */
export async function seedDocuments(
  caller: Caller,
  folderId: string | ((n: number) => string),
  count: number,
  prefix: string,
  /** Without their change items: documents as a restored backup has them, which only a rebuild of the search index finds. */
  options: { withoutChanges?: boolean } = {},
) {
  const folderOf = typeof folderId === 'string' ? () => folderId : folderId;
  const ids: string[] = [];
  const usage = new Map<string, number>();
  let writing = Promise.resolve();
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const into = captured.getStore();
      if (!into || context.commandName !== 'TransactWriteItemsCommand') return next(args);
      for (const action of (args.input as TransactWriteCommandInput).TransactItems ?? []) {
        // The repository's usage (`ADD bytes :size`): summed, and added once per repository after the items.
        if (action.Update && (action.Update.Key as Key).SK === ITEM_SORT_KEY.usage) {
          const { PK } = action.Update.Key as Key;
          usage.set(PK, (usage.get(PK) ?? 0) + (action.Update.ExpressionAttributeValues?.[':size'] as number));
          continue;
        }
        if (action.Update || action.Delete) throw new Error('bench/fixture.ts: a create that updates or deletes cannot be bulk-written');
        if (action.Put && !(options.withoutChanges && isPendingChangeKey(action.Put.Item as Key))) into.push(action.Put.Item!);
      }
      return { output: { $metadata: {} }, response: {} } as any;
    },
    { step: 'initialize', name: CAPTURE },
  );
  try {
    // A thousand at a time, each thousand written while the next is made.
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
  for (const [PK, bytes] of usage) {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK, SK: ITEM_SORT_KEY.usage },
        UpdateExpression: 'ADD #bytes :bytes',
        ExpressionAttributeNames: { '#bytes': 'bytes' },
        ExpressionAttributeValues: { ':bytes': bytes },
      }),
    );
  }
  return ids;
}

async function writeAll(items: Item[]): Promise<void> {
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) => items.slice(i * 25, (i + 1) * 25));
  const worker = async () => {
    for (let batch = batches.pop(); batch; batch = batches.pop()) {
      let pending: object[] = batch.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
        pending = result.UnprocessedItems?.[tableName()] ?? [];
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}
