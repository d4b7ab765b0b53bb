/**
 * The local service as its own process (`bin/local.ts` on a DATA_DIR, as `npm start` runs it),
 * for tests that kill it: started, found (node, and java under its watchdog), SIGKILLed as a
 * whole, and started again on the same files. Used by test/local/durability.test.ts,
 * test/worker/worker-restart.test.ts and test/uploads/upload-durability.test.ts.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const START_TIMEOUT_MS = 30_000;
/** Characters of a service's output kept for its test to read, from the start of a line. */
const OUTPUT_KEPT = 1_000_000;

export interface Running {
  url: string;
  node: ChildProcess;
  /** Process groups to SIGKILL: node's, and java's (its watchdog is a group leader). */
  groups: number[];
  /** Where the service sends its DynamoDB requests (the commit barrier in front of java). */
  dynamodbEndpoint: string;
  /** Everything the service printed so far. */
  output(): string;
}

/** Live (not zombie) processes whose command line mentions `text`. */
export function processesMentioning(text: string): { pid: number; pgid: number; args: string }[] {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  const found: { pid: number; pgid: number; args: string }[] = [];
  for (const line of out.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (match && !match[3]!.startsWith('Z') && match[4]!.includes(text)) {
      found.push({ pid: Number(match[1]), pgid: Number(match[2]), args: match[4]! });
    }
  }
  return found;
}

export async function startService(dataDir: string): Promise<Running> {
  // A small search page cache: PostgreSQL zeroes it at each of the many starts (1.6 → 0.4 s of CPU).
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', DATA_DIR: dataDir, SEARCH_PAGE_CACHE: '16MB' };
  delete env.JWT_ISSUER;
  delete env.JWT_AUDIENCE;
  delete env.TABLE_NAME;
  const node = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    cwd: projectRoot,
    env,
    detached: true, // its own group: one kill reaches node and nothing else
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      // bin/local.ts prints both lines at once: the service's address, then its DynamoDB's.
      const match = /listening on (http:\/\/\S+)[\s\S]*DynamoDB Local at (http:\/\/[^)\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    node.stdout!.on('data', onData);
    node.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    node.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`bin/local.ts exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
  try {
    const listening = await url;
    const dynamodbEndpoint = /DynamoDB Local at (http:\/\/[^)\s]+)/.exec(output)![1]!;
    // Keep draining the access log so the pipe never fills. Its last lines are kept whole: tests
    // parse them (large-verify-kill.test.ts reads every `hashed` line since a restart), and a
    // 20,000-character window once began in the middle of one (CI run of ec45f1e).
    node.stdout!.removeAllListeners('data').on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > OUTPUT_KEPT) output = output.slice(output.indexOf('\n', output.length - OUTPUT_KEPT) + 1);
    });
    // java runs under the watchdog, detached: its group is found by the database path it was given.
    const javaGroups = processesMentioning(join(dataDir, 'dynamodb')).map((p) => p.pgid);
    if (javaGroups.length === 0) throw new Error('DynamoDB Local (java) not found among the processes');
    return { url: listening, node, groups: [node.pid!, ...new Set(javaGroups)], dynamodbEndpoint, output: () => output };
  } catch (error) {
    killHard({ groups: [node.pid!] }); // java, if any, is found by its path (killEverythingOn)
    throw error;
  }
}

/** SIGKILL for every group at once: no process gets a chance to flush anything. */
export function killHard(running: Pick<Running, 'groups'>): void {
  for (const group of running.groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // ESRCH: already gone.
    }
  }
}

export async function waitUntilGone(running: Running, dataDir: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  const nodeExited =
    running.node.exitCode !== null || running.node.signalCode !== null
      ? Promise.resolve()
      : new Promise((r) => running.node.once('exit', r));
  await nodeExited;
  while (processesMentioning(join(dataDir, 'dynamodb')).length > 0) {
    if (Date.now() > deadline) throw new Error('java is still running 10 s after SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whatever is left of any start on `dataDir` (java, its watchdog), by the database path. */
export function killEverythingOn(dataDir: string): void {
  for (const { pgid } of processesMentioning(join(dataDir, 'dynamodb'))) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {}
  }
}

/** A test's teardown: what is left of its service on `dataDir` killed (java and its watchdog too, by the path), then the dir removed. */
export async function removeService(running: Running | undefined, dataDir: string): Promise<void> {
  if (running) killHard(running);
  killEverythingOn(dataDir);
  if (running) await waitUntilGone(running, dataDir).catch(() => {});
  await rm(dataDir, { recursive: true, force: true });
}

/** A JSON request to a child service as the holder of `token`: the status and the parsed body. */
export async function callService(running: Running, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${running.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
