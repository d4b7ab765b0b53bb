/**
 * `npm run bench:local`: what the local server (lib/local: the API Gateway emulator, the JWT
 * check, the handler) costs on top of DynamoDB Local, for one read.
 *
 * Four processes: this runner (autocannon), DynamoDB Local (in memory, java), the service
 * process (startLocalService as `npm start` runs it: local issuer, access log to stdout, here a
 * pipe this runner reads; the seeded repository and its one 1 KB document), and the bare process: a node:http
 * server answering every request with one GetItem of that document (a plain DynamoDBClient, the
 * SDK's defaults, no middleware) and the item's JSON, 200. Both sides are HTTP in, DynamoDB out.
 *
 * autocannon, 32 connections, GET /document/{id} with a valid bearer token on both sides (the
 * bare side ignores it). A warm-up of each side, then ROUNDS rounds of SECONDS seconds, each side
 * once per round, which side goes first alternating; the ratio is service req/s ÷ bare req/s per
 * round, and the median of those. LOCAL_BENCH_SECONDS, LOCAL_BENCH_ROUNDS set the lengths;
 * LOCAL_BENCH_PROFILE=<prefix> also profiles both sides' processes during the last round
 * (node:inspector, 100 µs), writes <prefix>-service.cpuprofile and <prefix>-bare.cpuprofile and
 * prints their top costs. Each side's CPU time per request (its process's, and java's) is measured
 * in every round. Writes bench/local-server.md.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import autocannon from 'autocannon';
import { type CpuProfile, msByPart } from './profile';

const CONNECTIONS = 32;
const SECONDS = Number(process.env.LOCAL_BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.LOCAL_BENCH_ROUNDS ?? 3);
const WARM_UP_SECONDS = 3;
const TABLE = 'documents-local-bench';
const log = (line: string) => process.stdout.write(`${line}\n`);

type Message = { id?: number; method?: string; args?: unknown[]; result?: unknown; error?: string };

/** Calls into a child: `{ id, method, args }` out, `{ id, result | error }` back. */
function connect(child: ChildProcess) {
  let next = 0;
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  child.on('message', ({ id, result, error }: Message) => {
    const call = pending.get(id!);
    pending.delete(id!);
    if (error !== undefined) call?.reject(new Error(error));
    else call?.resolve(result);
  });
  child.on('exit', (code) => {
    for (const call of pending.values()) call.reject(new Error(`child exited (${code})`));
  });
  return (method: string, ...args: unknown[]) =>
    new Promise<any>((resolve, reject) => {
      pending.set(next, { resolve, reject });
      child.send({ id: next++, method, args });
    });
}

function serve(handlers: Record<string, (...args: any[]) => unknown>) {
  process.on('message', async ({ id, method, args }: Message) => {
    try {
      process.send!({ id, result: await handlers[method!]!(...(args ?? [])) });
    } catch (error) {
      process.send!({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
}

// ---- the service process ----

async function serviceProcess() {
  const { startLocalService } = await import('#lib/local/service');
  let dataDir = '';
  let stop: (() => Promise<void>) | undefined;
  serve({
    async start(dynamodbEndpoint: string) {
      dataDir = await mkdtemp(join(tmpdir(), 'documents-local-bench-'));
      // As `npm start`: the local issuer, the access log on stdout (a pipe the runner reads).
      const service = await startLocalService({ port: 0, dataDir, dynamodbEndpoint, tableName: TABLE, issuer: 'local' });
      stop = () => service.stop();
      const token = await service.issueToken('bench-user', {}, { expiresInSeconds: 24 * 3600 });
      const call = async (method: string, path: string, body: unknown) => {
        const response = await fetch(service.url + path, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
        return (await response.json()) as any;
      };
      const repository = await call('POST', '/', { name: 'Local bench' });
      const document = await call('POST', '/document', {
        folderId: repository.rootFolderId,
        name: 'one-kb.txt',
        content: 'x'.repeat(1024),
        contentType: 'text/plain',
      });
      await service.worker.settled();
      return { url: service.url, token, documentId: document.id as string };
    },
    ...probes(),
    async stop() {
      await stop?.();
      await rm(dataDir, { recursive: true, force: true });
      setImmediate(() => process.exit(0));
    },
  });
}

// ---- the bare process: HTTP in, one GetItem out ----

async function bareProcess() {
  let item: { PK: { S: string }; SK: { S: string } };
  serve({
    async start(endpoint: string, documentId: string) {
      const { documentKey } = await import('#core/items/keys');
      const key = documentKey(documentId);
      item = { PK: { S: key.PK }, SK: { S: key.SK } };
      const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
      const server = createServer((_req, res) => {
        client.send(new GetItemCommand({ TableName: TABLE, Key: item })).then(
          (answer) => {
            if (!answer.Item) res.writeHead(404).end();
            else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer.Item));
          },
          () => res.writeHead(500).end(),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      return { url: `http://127.0.0.1:${port}` };
    },
    ...probes(),
    stop: () => setImmediate(() => process.exit(0)),
  });
}

/** What the runner asks of both children: their CPU time so far, and a CPU profile around a round. */
function probes() {
  let session: Session | undefined;
  return {
    cpuMicros: () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    },
    async startProfile() {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
    },
    async stopProfile(file: string) {
      const { profile } = await session!.post('Profiler.stop');
      session!.disconnect();
      await writeFile(file, JSON.stringify(profile));
      return summarizeProfile(profile);
    },
  };
}

// ---- the profile's summary ----

/** Self time by function (top 25) and by part of the stack (innermost known frame), in % of busy samples. */
function summarizeProfile(profile: CpuProfile) {
  const parts: [string, RegExp][] = [
    ['gateway: lib/local', /lib\/local\//],
    ['JWT: jose', /node_modules\/jose\//],
    [
      'handler stack: functions/core/http, errors, auth, logger',
      /functions\/core\/http\/|functions\/core\/(schemas|errors|auth|logger)\.ts/,
    ],
    ['middy', /node_modules\/@middy\//],
    ['powertools logger', /node_modules\/@aws-lambda-powertools\//],
    ['zod', /node_modules\/zod\//],
    [
      'store: functions/core/{db,items,use-cases}',
      /functions\/core\/(db|items|use-cases)\/|functions\/core\/(ids|names|paging|preconditions|resources)\.ts/,
    ],
    ['AWS SDK', /node_modules\/@aws-sdk\/|node_modules\/@smithy\//],
    ['routes', /functions\/routes\.ts/],
  ];
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byPart = msByPart(profile, ({ url }) => parts.find(([, match]) => match.test(url))?.[0], 'node: HTTP, sockets, event loop, GC');
  const self = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  profile.samples?.forEach((id, i) => {
    const node = byId.get(id)!;
    const ms = (profile.timeDeltas?.[i] ?? 0) / 1000;
    if (node.callFrame.functionName === '(idle)') {
      idle += ms;
      return;
    }
    busy += ms;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^.*?\/(node_modules|lib|functions|bench)\//, '$1/')}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'} ${where}`.trim();
    self.set(name, (self.get(name) ?? 0) + ms);
  });
  const pct = (ms: number) => Math.round((1000 * ms) / busy) / 10;
  return {
    busyMs: Math.round(busy),
    idleMs: Math.round(idle),
    parts: Object.entries(byPart)
      .sort((a, b) => b[1] - a[1])
      .map(([name, ms]) => ({ name, pct: pct(ms) })),
    top: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([name, ms]) => ({ name, pct: pct(ms) })),
  };
}

// ---- the runner ----

interface Run {
  rps: number;
  errors: number;
  p50: number;
  p99: number;
  /** CPU time of the side's own process per request, µs. */
  cpuPerRequest: number;
  /** DynamoDB Local's CPU time per request, µs. */
  javaPerRequest: number;
}

/** DynamoDB Local's java process (the one listening on `port`), for its CPU time; undefined if not found. */
function javaPid(port: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args[0]?.endsWith('java') && args.includes(String(port))) return Number(entry);
    } catch {}
  }
  return undefined;
}

/** utime + stime of a process, µs (Linux /proc; NaN elsewhere). */
function javaMicros(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

function load(url: string, token: string, seconds: number): Promise<Omit<Run, 'cpuPerRequest' | 'javaPerRequest'>> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: seconds, headers: { authorization: `Bearer ${token}` } }, (error, result) => {
      if (error) return reject(error);
      const wrong = result.non2xx + result.errors + result.timeouts;
      resolve({ rps: result.requests.total / result.duration, errors: wrong, p50: result.latency.p50, p99: result.latency.p99 });
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fmt = (n: number, digits = 0) => n.toFixed(digits);

async function main() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { startDynamoDbLocal } = await import('#lib/local/dynamodb-local');
  const dynamodb = await startDynamoDbLocal({});
  const child = (role: string, stdout: 'pipe' | 'ignore') =>
    fork(import.meta.filename, [role], { execArgv: ['--import', 'tsx'], stdio: ['ignore', stdout, 'inherit', 'ipc'] });
  // The service's access log goes to a pipe read here, as `npm start`'s goes to a terminal.
  const serviceChild = child('--service', 'pipe');
  let logLines = 0;
  serviceChild.stdout!.on('data', (chunk: Buffer) => {
    for (const byte of chunk) if (byte === 10) logLines++;
  });
  const bareChild = child('--bare', 'ignore');
  const service = connect(serviceChild);
  const bare = connect(bareChild);
  try {
    const { url, token, documentId } = await service('start', dynamodb.endpoint);
    const { url: bareUrl } = await bare('start', dynamodb.endpoint, documentId);
    const serviceUrl = `${url}/document/${documentId}`;
    const bareTarget = `${bareUrl}/document/${documentId}`;
    log(
      `local-server bench: DynamoDB Local at ${dynamodb.endpoint}; ${ROUNDS} rounds of ${SECONDS} s; load average ${loadavg()[0]!.toFixed(2)}`,
    );
    await load(serviceUrl, token, WARM_UP_SECONDS);
    await load(bareTarget, token, WARM_UP_SECONDS);
    const rounds: { service: Run; bare: Run; ratio: number }[] = [];
    const profileFile = process.env.LOCAL_BENCH_PROFILE;
    const profiles: Record<string, Awaited<ReturnType<typeof summarizeProfile>>> = {};
    const java = javaPid(dynamodb.port);
    /** One side's run, with its process's and java's CPU per request; the last round profiled if asked. */
    const measure = async (side: 'service' | 'bare', round: number): Promise<Run> => {
      const call = side === 'service' ? service : bare;
      const profiling = profileFile && round === ROUNDS - 1;
      if (profiling) await call('startProfile');
      const [cpu0, java0] = [await call('cpuMicros'), javaMicros(java)];
      const run = await load(side === 'service' ? serviceUrl : bareTarget, token, SECONDS);
      const [cpu1, java1] = [await call('cpuMicros'), javaMicros(java)];
      if (profiling) profiles[side] = await call('stopProfile', profileFile.replace(/(\.cpuprofile)?$/, `-${side}.cpuprofile`));
      const requests = run.rps * SECONDS;
      return { ...run, cpuPerRequest: (cpu1 - cpu0) / requests, javaPerRequest: (java1 - java0) / requests };
    };
    for (let round = 0; round < ROUNDS; round++) {
      let s: Run;
      let b: Run;
      if (round % 2 === 0) {
        s = await measure('service', round);
        b = await measure('bare', round);
      } else {
        b = await measure('bare', round);
        s = await measure('service', round);
      }
      rounds.push({ service: s, bare: b, ratio: s.rps / b.rps });
      const line = (r: Run) =>
        `${fmt(r.rps)} req/s (p50 ${r.p50} ms, ${r.errors} errors; CPU/request ${fmt(r.cpuPerRequest)} µs, java ${fmt(r.javaPerRequest)} µs)`;
      log(`round ${round + 1}: service ${line(s)}, bare ${line(b)}, ratio ${fmt(s.rps / b.rps, 2)}`);
    }
    const ratio = median(rounds.map((r) => r.ratio));
    if (logLines < rounds.reduce((sum, r) => sum + r.service.rps * SECONDS, 0))
      throw new Error(`the service logged only ${logLines} access lines`);
    log(
      `median ratio ${fmt(ratio, 2)} (service ${fmt(median(rounds.map((r) => r.service.rps)))} req/s, bare ${fmt(median(rounds.map((r) => r.bare.rps)))} req/s)`,
    );
    for (const [side, profile] of Object.entries(profiles)) {
      log(`profile of the ${side} process, last round: ${profile.busyMs} ms busy, ${profile.idleMs} ms idle`);
      for (const part of profile.parts) log(`  ${String(part.pct).padStart(5)}%  ${part.name}`);
      log('  top self time:');
      for (const top of profile.top) log(`  ${String(top.pct).padStart(5)}%  ${top.name}`);
    }
    await writeFile(join(import.meta.dirname, 'local-server.md'), report(rounds, ratio, profiles));
    log('wrote bench/local-server.md');
  } finally {
    await service('stop').catch(() => serviceChild.kill());
    await bare('stop').catch(() => bareChild.kill());
    await dynamodb.stop();
  }
}

/** The profiled round's CPU per request by part, both sides (LOCAL_BENCH_PROFILE). */
function profileTable(last: { service: Run; bare: Run }, profiles: Record<string, ReturnType<typeof summarizeProfile>>): string {
  const { service, bare } = profiles;
  if (!service || !bare) return '';
  const names = [...new Set([...service.parts, ...bare.parts].map((p) => p.name))];
  const perRequest = (side: 'service' | 'bare', name: string) => {
    const pct = profiles[side]!.parts.find((p) => p.name === name)?.pct ?? 0;
    return fmt((pct / 100) * last[side].cpuPerRequest);
  };
  return `
**Where the CPU goes** (\`LOCAL_BENCH_PROFILE\`: a sampling profile of each side's process in the last round, each
sample charged to the innermost frame of a known part), µs per request:

| part | service | bare |
|---|---|---|
${names.map((name) => `| ${name} | ${perRequest('service', name)} | ${perRequest('bare', name)} |`).join('\n')}
`;
}

function report(
  rounds: { service: Run; bare: Run; ratio: number }[],
  ratio: number,
  profiles: Record<string, ReturnType<typeof summarizeProfile>> = {},
): string {
  const rows = rounds.map(
    (r, i) =>
      `| ${i + 1} | ${fmt(r.service.rps)} | ${r.service.p50} | ${r.service.errors} | ${fmt(r.service.cpuPerRequest)} / ${fmt(r.service.javaPerRequest)} | ` +
      `${fmt(r.bare.rps)} | ${r.bare.p50} | ${r.bare.errors} | ${fmt(r.bare.cpuPerRequest)} / ${fmt(r.bare.javaPerRequest)} | ${fmt(r.ratio, 2)} |`,
  );
  return `# The local server against a bare GetItem

Generated by \`npm run bench:local\` (bench/local-server.ts); ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (shared by
DynamoDB Local, the service process, the bare process and autocannon), load average ${loadavg()[0]!.toFixed(2)} at the end.

autocannon, ${CONNECTIONS} connections, GET /document/{id} of one 1 KB document, with a valid bearer token.
**Service**: the local server as \`npm start\` runs it (lib/local/service.ts: gateway, JWT check, handler, access
log to stdout, a pipe the runner reads), on DynamoDB Local in memory. **Bare**: a node:http server in its own process answering each request
with one \`GetItem\` of the same item (a plain \`DynamoDBClient\`, SDK defaults) and the item's JSON. Both: HTTP in,
DynamoDB out. ${ROUNDS} rounds of ${SECONDS} s after a ${WARM_UP_SECONDS} s warm-up of each, alternating which side goes first.

| round | service req/s | p50 ms | errors | CPU µs/req: service / java | bare req/s | p50 ms | errors | CPU µs/req: bare / java | service ÷ bare |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

**Median ratio: ${fmt(ratio, 2)}** (target ≥ 0.7). CPU µs/req: CPU time of that side's process (and of
DynamoDB Local's java) over the run, per answered request.
${profileTable(rounds.at(-1)!, profiles)}`;
}

const role = process.argv[2];
const run = role === '--service' ? serviceProcess : role === '--bare' ? bareProcess : main;
run().catch((error: unknown) => {
  process.stderr.write(`bench:local failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
