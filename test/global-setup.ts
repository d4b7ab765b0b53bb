/**
 * The test run's DynamoDB Locals: an in-memory one of its own for each test file that asks for
 * one, from a small pool kept warm here, in vitest's main process.
 *
 * Why not one for the whole run: DynamoDB Local slows down as data piles up in it (after ~30k
 * items a TransactWriteItems went from ~16 to ~195 ms, a GetItem from ~8 to ~84 ms), and
 * dropping the tables does not bring it back; a fresh one does, and costs ~2.5 s of CPU to start.
 * Starting it here, ahead of time, keeps that start off the test file's path: a file leases one
 * on its first table (test/support/dynamodb.ts, `fileDatabase`), and gives it back when it is done
 * (test/support/after-each-file.ts). Its tables are then dropped and it serves the next file, up to
 * FILES_PER_INSTANCE files and REUSE_MAX_ITEMS items in all; past either it is stopped and the
 * pool starts another. The suite is CPU-bound on 2 cores, and java's start was ~10 % of it.
 *
 * The lease is a loopback HTTP call to this process (`inject('dynamodbBroker')`): test files run
 * in their own processes (vitest's forks pool, isolated), and a java child started there would be
 * started on the file's time. A file that never touches the database starts nothing.
 *
 * The same server hands out the run's function bundles (`POST /bundles`, test/support/bundles.ts):
 * built once, on the first request, for the files that run them or compare them (bundling every
 * function is the longest step of either file).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand, DescribeTableCommand, paginateListTables } from '@aws-sdk/client-dynamodb';
import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, ensureTable, localClient, startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { writeSearchSnapshot } from '#lib/local/search-database';
import { ensureWebBuild } from '#lib/local/web-app';
import { type Bundles, bundleAllFunctions } from '#test/support/bundles';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the pool below: `POST /lease` → `{ id, endpoint }`, `POST /release/<id>`; `POST /bundles` → `{ bundles }`. */
    dynamodbBroker: string;
  }
}

/** Instances kept started ahead of demand: one per worker (vitest.config.ts sets it: WORKERS). */
const WARM = Math.max(1, Number(process.env.TEST_DYNAMODB_WARM ?? 2));
/** Files one instance serves, its tables dropped between them. */
const FILES_PER_INSTANCE = 5;
/** Items one instance may have held in all (counted when each file gives it back): past this it is stopped, not lent again. */
const REUSE_MAX_ITEMS = 10_000;

interface Broker {
  url: string;
  users: number;
  close(): Promise<void>;
}
/** One pool for the whole run: every project of the database tier names this file as its globalSetup. */
const shared = globalThis as {
  documentsTestBroker?: Promise<Broker>;
  documentsWebBuild?: Promise<boolean>;
  documentsSearchSnapshot?: Promise<void>;
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.documentsTestBroker ??= startBroker();
  // The web app (web/dist) built once, here: files that start `npm start` in a child would each build it at once otherwise.
  shared.documentsWebBuild ??= ensureWebBuild();
  await shared.documentsWebBuild;
  // One migrated search database for the run: each service's in-memory one starts from it (lib/local/search-database.ts).
  shared.documentsSearchSnapshot ??= (async () => {
    const file = join(tmpdir(), `documents-search-${process.pid}.pgdata`);
    await writeSearchSnapshot(file);
    process.env.SEARCH_SNAPSHOT = file;
  })();
  await shared.documentsSearchSnapshot;
  const broker = await shared.documentsTestBroker;
  broker.users++;
  project.provide('dynamodbBroker', broker.url);
  return async () => {
    if (--broker.users > 0) return;
    shared.documentsTestBroker = undefined;
    if (process.env.SEARCH_SNAPSHOT) await rm(process.env.SEARCH_SNAPSHOT, { force: true });
    await broker.close();
  };
}

/**
 * A table made and dropped before the instance is lent: a fresh java's first CreateTable takes
 * ~0.5-0.9 s (classes loaded, code compiled), the next ~0.1 s. Done here, that is off the file's path.
 */
async function warmUp(database: DynamoDbLocal): Promise<DynamoDbLocal> {
  const client = localClient(database.endpoint);
  try {
    await ensureTable(database.endpoint, 'pool-warm-up');
    await client.send(new DeleteTableCommand({ TableName: 'pool-warm-up' }));
    return database;
  } catch (error) {
    await database.stop().catch(() => {});
    throw error;
  } finally {
    client.destroy();
  }
}

/**
 * Drops every table of `database` when, with `before` items its earlier files left, they hold at
 * most REUSE_MAX_ITEMS (DynamoDB Local counts them live); returns the items it held in all, or
 * undefined, dropping nothing, when that is more or it does not answer.
 */
async function emptied(database: DynamoDbLocal, before: number): Promise<number | undefined> {
  const client = localClient(database.endpoint);
  try {
    const tables: string[] = [];
    for await (const page of paginateListTables({ client }, {})) tables.push(...(page.TableNames ?? []));
    let items = before;
    for (const name of tables) items += (await client.send(new DescribeTableCommand({ TableName: name }))).Table?.ItemCount ?? 0;
    if (items > REUSE_MAX_ITEMS) return undefined;
    for (const name of tables) await client.send(new DeleteTableCommand({ TableName: name }));
    return items;
  } catch {
    return undefined;
  } finally {
    client.destroy();
  }
}

async function startBroker(): Promise<Broker> {
  // The SDK's "Node 22 will be required in 2027" notice is noise here (vitest.config sets it for workers).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

  const warm: Promise<DynamoDbLocal>[] = [];
  const leased = new Map<string, DynamoDbLocal>();
  /** Per instance: the files it was lent to, and the items they left. */
  const served = new WeakMap<DynamoDbLocal, { files: number; items: number }>();
  const givingBack = new Set<Promise<void>>();
  const stopping = new Set<Promise<void>>();
  let closed = false;
  let leases = 0;
  let bundleDir: string | undefined;
  let bundles: Promise<Bundles> | undefined;

  const startOne = () => {
    const started = startDynamoDbLocal({}).then(warmUp);
    started.catch(() => {}); // reported to whoever leases it
    return started;
  };
  const refill = () => {
    while (!closed && warm.length < WARM) warm.push(startOne());
  };
  const stop = (database: DynamoDbLocal) => {
    const done = database
      .stop()
      .catch(() => {})
      .finally(() => stopping.delete(done));
    stopping.add(done);
  };

  async function lease(): Promise<{ id: string; endpoint: string }> {
    const next = warm.shift() ?? startOne();
    refill();
    const database = await next;
    const use = served.get(database) ?? { files: 0, items: 0 };
    served.set(database, { ...use, files: use.files + 1 });
    const id = String(++leases);
    leased.set(id, database);
    return { id, endpoint: database.endpoint };
  }

  /** A database given back: lent again first if it may serve another file, else stopped. */
  async function giveBack(database: DynamoDbLocal) {
    const use = served.get(database) ?? { files: 0, items: 0 };
    const items = !closed && use.files < FILES_PER_INSTANCE ? await emptied(database, use.items) : undefined;
    if (items === undefined || closed) return stop(database);
    served.set(database, { files: use.files, items });
    warm.unshift(Promise.resolve(database));
  }

  // `connection: close`: a test file's next call opens a new socket. A kept-alive one could be
  // closed by this server (its 5 s keep-alive) just as a loaded worker sent a lease on it, and
  // that lease failed with "other side closed" (synth.test.ts after a long bundle build, in CI).
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const url = req.url ?? '';
    if (req.method === 'POST' && url === '/lease') {
      lease().then(
        (lent) => answer(res, 200, lent),
        (error: unknown) => answer(res, 500, { message: error instanceof Error ? error.message : String(error) }),
      );
      return;
    }
    if (req.method === 'POST' && url === '/bundles') {
      bundles ??= mkdtemp(join(tmpdir(), 'documents-bundles-')).then((dir) => {
        bundleDir = dir;
        return bundleAllFunctions(dir);
      });
      bundles.then(
        (built) => answer(res, 200, { bundles: built }),
        (error: unknown) => answer(res, 500, { message: error instanceof Error ? error.message : String(error) }),
      );
      return;
    }
    const released = req.method === 'POST' ? /^\/release\/(\d+)$/.exec(url) : null;
    if (released) {
      const database = leased.get(released[1]!);
      leased.delete(released[1]!);
      if (database) {
        const given = giveBack(database).finally(() => givingBack.delete(given));
        givingBack.add(given);
      }
      answer(res, 200, { released: Boolean(database) });
      return;
    }
    answer(res, 404, { message: `no ${req.method} ${url}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  refill();

  const close = async () => {
    closed = true;
    const closing = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closing;
    const spare = await Promise.allSettled(warm.splice(0));
    for (const result of spare) if (result.status === 'fulfilled') stop(result.value);
    for (const database of leased.values()) stop(database);
    leased.clear();
    await Promise.all([...givingBack]);
    await Promise.all([...stopping]);
    await bundles?.catch(() => {});
    if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, users: 0, close };
}
