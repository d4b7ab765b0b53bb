/**
 * Cost: dollars per million calls of each endpoint on AWS, priced from what a busy function
 * pays. Each function's bundle (as the stack bundles it) runs in a fresh Node process with API
 * Gateway events against DynamoDB Local: a warm-up, then thousands of calls, each timed for
 * wall time and CPU (`process.cpuUsage`: DynamoDB's wait is not CPU). Beside each read handler,
 * the same DynamoDB requests (captured from the handler through a recording proxy) are made by
 * a bare SDK client bundled the same way (bench/reference/bare-sdk.ts), in the same way.
 *
 * On Lambda a function gets a share of a vCPU proportional to its memory (1 vCPU at 1,769 MB),
 * so the CPU part is scaled by 1,769 / memory; the wait is kept as measured. Lambda bills
 * whole milliseconds, and (since August 2025) the init phase of a cold start too.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { routes } from '#functions/routes';
import { bundleHandler, esbuildOptions, handlerEntry, projectRoot } from '#lib/bundling';
import { memorySizeOf } from '#lib/function-settings';
import { buildEvent, resolveRoute } from '#lib/local/lambda-event';
import { callsOf, type Endpoint, endpoints } from '../endpoints';
import type { Fixture } from '../fixture';
import { median, quantile, round } from '../load';
import { f, table, usd } from '../markdown';
import { MB_PER_VCPU, prices } from '../prices';
import type { WireRequest } from '../reference/bare-sdk';
import type { Bench, Scenario } from '../run';
import { NODE, PARTS, partsOf, readableBundle } from './call-profile';
import type { CapacityRow } from './capacity';
import type { Bundle, ColdStartRow } from './cold-start';
import { PROFILED } from './throughput';

/**
 * Calls measured after the warm-up: reads (the CPU budget's subject) get more. Writes stay under
 * the 1,000 repositories one user may have (POST / by the fixture's user).
 */
const CALLS = { read: { warmUp: 500, measured: 2_400 }, write: { warmUp: 150, measured: 600 } };
/** Turns of handler and bare client per read endpoint. */
const ROUNDS = 3;

/** CPU and wall time per call, after the warm-up. */
export interface CallFigures {
  /** Mean CPU per call: the process's CPU over all measured calls (GC included) / calls. */
  cpuMs: number;
  /** Medians and 99th percentiles per call. */
  cpuP50: number;
  cpuP99: number;
  wallP50: number;
  wallP99: number;
  /** Median of wall − CPU per call: the wait for DynamoDB. */
  waitMs: number;
  waitP99: number;
  calls: number;
}

export interface DurationRow extends CallFigures {
  endpoint: string;
  /** The function (route) that serves it. */
  route: string;
  /** The first call of a fresh process (SDK client set up, connection opened). */
  firstMs: number;
  /** For a read: the same DynamoDB requests made by a bare SDK client, and handler CPU / bare CPU. */
  bare?: CallFigures & { requests: string };
  cpuRatio?: number;
  /** Expected on Lambda at the function's configured memory size: CPU scaled to its vCPU share, plus the wait (set by `priced`). */
  memorySize: number;
  lambdaMs: number;
}

/** The durations at each function's memory size as configured now (lib/function-settings.ts). */
export function priced(durations: DurationRow[]): DurationRow[] {
  return durations.map((row) => {
    const memorySize = memorySizeOf(row.route);
    return { ...row, memorySize, lambdaMs: round(row.waitMs + row.cpuMs * Math.max(1, MB_PER_VCPU / memorySize)) };
  });
}

export interface CostRow {
  endpoint: string;
  billedMs: number;
  readUnits: number;
  writeUnits: number;
  /** Dollars per million calls. */
  httpApi: number;
  lambdaRequests: number;
  lambdaDuration: number;
  dynamodb: number;
  total: number;
}

/**
 * Calls the module's handler with each event in turn (the first `warmUp` unmeasured, save the
 * first call's wall time); writes { firstMs, calls: [status, wallMs, cpuMs][], cpuTotalMs }. With
 * CPU_PROFILE set, also a CPU profile of the measured calls to that file (call-profile.ts; its
 * sampling costs CPU, so a profiled run is never a measured one).
 */
const INVOKE = `
import { readFileSync, writeFileSync } from 'node:fs';
const [bundle, eventsFile, outFile, warmUpText] = process.argv.slice(1);
const warmUp = Number(warmUpText);
const { handler } = await import(bundle);
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const calls = [];
let firstMs = 0;
let total;
let profiler;
for (const [i, event] of events.entries()) {
  if (i === warmUp && process.env.CPU_PROFILE) {
    const { Session } = await import('node:inspector/promises');
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
    await profiler.post('Profiler.start');
  }
  if (i === warmUp) total = process.cpuUsage();
  const context = { awsRequestId: 'bench-' + i, functionName: 'bench', functionVersion: '$LATEST', memoryLimitInMB: process.env.MEMORY,
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:bench', logGroupName: '/aws/lambda/bench', logStreamName: 'bench',
    callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => 20000 };
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await handler(event, context);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (i === 0) firstMs = wallMs;
  if (i >= warmUp) calls.push([result.statusCode, wallMs, (used.user + used.system) / 1000]);
}
const used = process.cpuUsage(total);
if (profiler) writeFileSync(process.env.CPU_PROFILE, JSON.stringify((await profiler.post('Profiler.stop')).profile));
writeFileSync(outFile, JSON.stringify({ firstMs, calls, cpuTotalMs: (used.user + used.system) / 1000 }));
`;
const CLAIMS = { iss: 'https://issuer.example.com', aud: 'documents-api', iat: 1, exp: 4102444800 };

export const cost: Scenario = {
  name: 'cost',
  title: 'cost per million calls, from warm CPU per call',
  async run(bench, { capacity, bundles }) {
    const files = bundles ?? (await bundleForCost(join(bench.scratch, 'cost-bundles')));
    const { rows: measuredRows, profile } = await measureDurations(bench, files);
    const durations = priced(measuredRows);
    const rows = costs(durations, capacity!);
    for (const row of rows) bench.log(`  ${row.endpoint.padEnd(28)} $${row.total.toFixed(3)} per million (${row.billedMs} ms billed)`);
    return { durations, cost: rows, callProfiles: await profile() };
  },
};

/** Every route's bundle and the bare SDK reference, when the cold-start scenario did not run before. */
async function bundleForCost(dir: string): Promise<Bundle[]> {
  const bundles: Bundle[] = [];
  for (const { name, handler } of routes) {
    const file = await bundleHandler(handler, join(dir, name));
    bundles.push({ name, handler, file, bytes: 0, gzipBytes: 0 });
  }
  return bundles;
}

async function bareBundle(dir: string): Promise<string> {
  const out = join(dir, 'bare-sdk', 'index.mjs');
  await build(esbuildOptions(join(projectRoot, 'bench', 'reference', 'bare-sdk.ts'), out));
  return out;
}

/** Runs INVOKE in a fresh process; `env` on top of the Lambda environment. */
async function invoke(
  module: string,
  events: unknown[],
  files: { events: string; out: string },
  warmUp: number,
  env: Record<string, string>,
) {
  await writeFile(files.events, JSON.stringify(events));
  await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', INVOKE, pathToFileURL(module).href, files.events, files.out, String(warmUp)],
    {
      env: { PATH: process.env.PATH ?? '', ...env },
      maxBuffer: 256 * 1024 * 1024, // INFO logs, one line per call, as on Lambda
    },
  );
  return JSON.parse(await readFile(files.out, 'utf8')) as { firstMs: number; calls: [number, number, number][]; cpuTotalMs: number };
}

/** Several runs' calls taken together. */
interface Measured {
  firstMs: number[];
  calls: [number, number, number][];
  cpuTotalMs: number;
}

function add(into: Measured, run: { firstMs: number; calls: [number, number, number][]; cpuTotalMs: number }) {
  into.firstMs.push(run.firstMs);
  into.calls.push(...run.calls);
  into.cpuTotalMs += run.cpuTotalMs;
}

function figures(calls: [number, number, number][], cpuTotalMs: number): CallFigures {
  const wall = calls.map((c) => c[1]);
  const cpu = calls.map((c) => c[2]);
  const wait = calls.map((c) => Math.max(0, c[1] - c[2]));
  return {
    cpuMs: round(cpuTotalMs / calls.length, 3),
    cpuP50: round(median(cpu), 3),
    cpuP99: round(quantile(cpu, 0.99), 3),
    wallP50: round(median(wall), 3),
    wallP99: round(quantile(wall, 0.99), 3),
    waitMs: round(median(wait), 3),
    waitP99: round(quantile(wait, 0.99), 3),
    calls: calls.length,
  };
}

/**
 * The DynamoDB requests one call of the handler sends: the handler runs once in a fresh process
 * with DYNAMODB_ENDPOINT on a proxy here that records each request's operation and body and
 * passes it on. A request that starts while another is in flight was sent in parallel with it.
 */
async function captureRequests(module: string, event: unknown, files: { events: string; out: string }, env: Record<string, string>) {
  const target = new URL(env.DYNAMODB_ENDPOINT!);
  const captured: WireRequest[] = [];
  let inFlight = 0;
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      captured.push({ operation, input: JSON.parse(body.toString('utf8')), ...(inFlight > 0 ? { parallel: true } : {}) });
      inFlight++;
      const forward = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(res).on('finish', () => inFlight--);
        },
      );
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = proxy.address() as AddressInfo;
    await invoke(module, [event], files, 0, { ...env, DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}` });
  } finally {
    proxy.close();
  }
  // The store asks every request for its consumed capacity; so does the bare client then.
  return captured;
}

/** Reads are the GETs, by an endpoint's name (`GET /document/{id}`). */
const isRead = (name: string) => name.startsWith('GET ');
/**
 * Who calls: the fixture's user, but for POST /, whose hundreds of new repositories would take
 * the fixture's user past the 1,000 one may be in (DELETE /{id}'s targets are theirs too).
 */
const subjectOf = (endpoint: Endpoint, fixture: Fixture) => (endpoint.name === 'POST /' ? 'cost-creator' : fixture.caller.userId);

/** A read's CPU per call by part (call-profile.ts), the handler's and the bare client's making its requests. */
export interface CallProfile {
  endpoint: string;
  parts: { part: string; handlerMs: number; bareMs: number }[];
}

async function measureDurations({ service, fixture, scratch, lambdaEnv, log }: Bench, bundles: Bundle[]) {
  const bare = await bareBundle(join(scratch, 'cost-bundles'));
  const rows: DurationRow[] = [];
  /** What a read's profile needs: its handler, events, captured requests and environment. */
  const inputs = new Map<string, { handler: string; events: unknown[]; requests: WireRequest[]; env: Record<string, string> }>();
  for (const endpoint of endpoints) {
    const read = isRead(endpoint.name);
    const { warmUp, measured } = read ? CALLS.read : CALLS.write;
    const count = warmUp + measured;
    const call = await callsOf(endpoint, count + 1, (kind, n) => service.targets(kind, n));
    const events = Array.from({ length: count + 1 }, (_, n) => {
      const { method, path, body } = endpoint.http(fixture, call(n));
      const raw = {
        method,
        url: path,
        rawHeaders: ['host', 'api.example.com', 'content-type', 'application/json'],
        sourceIp: '203.0.113.7',
      };
      const event = { ...raw, body: Buffer.from(body === undefined ? '' : JSON.stringify(body)) };
      return buildEvent(event, resolveRoute(method, path.split('?')[0]!), { sub: subjectOf(endpoint, fixture), ...CLAIMS });
    });
    const route = resolveRoute(events[0]!.requestContext.http.method, events[0]!.rawPath).route.name;
    const bundle = bundles.find((b) => b.name === route)!;
    const memorySize = memorySizeOf(route); // what Lambda's context says; the pricing is priced()'s
    const slug = endpoint.name.replace(/[^A-Za-z]+/g, '-');
    const files = { events: join(scratch, `${slug}.events.json`), out: join(scratch, `${slug}.results.json`) };
    const env = { MEMORY: String(memorySize), ...lambdaEnv };
    // The last event is the capture's (a write's target is used once).
    const requests = read ? await captureRequests(bundle.file, events[count], files, env) : [];
    if (read) inputs.set(endpoint.name, { handler: bundle.handler, events: events.slice(0, warmUp + measured), requests, env });
    // Reads: the handler and the bare client take turns, a fresh process each, so that what the
    // machine does meanwhile weighs on both; the ratio is the median of the rounds'.
    const rounds = read ? ROUNDS : 1;
    const perRound = warmUp + Math.ceil(measured / rounds);
    const own: Measured = { firstMs: [], calls: [], cpuTotalMs: 0 };
    const reference: Measured = { firstMs: [], calls: [], cpuTotalMs: 0 };
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const result = await invoke(bundle.file, events.slice(0, rounds === 1 ? count : perRound), files, warmUp, env);
      const wrong = result.calls.filter(([status]) => status !== endpoint.status).map(([status]) => status);
      if (wrong.length > 0) throw new Error(`${endpoint.name}: bundle answered ${[...new Set(wrong)].join(', ')}`);
      add(own, result);
      if (!read) continue;
      const replay = await invoke(
        bare,
        Array.from({ length: perRound }, () => requests),
        files,
        warmUp,
        env,
      );
      add(reference, replay);
      ratios.push(result.cpuTotalMs / result.calls.length / (replay.cpuTotalMs / replay.calls.length));
    }
    const ownFigures = figures(own.calls, own.cpuTotalMs);
    let bareFigures: DurationRow['bare'];
    if (read) {
      const shape = requests.map((r, i) => (i > 0 ? (r.parallel ? ' ∥ ' : ' → ') : '') + r.operation).join('');
      bareFigures = { ...figures(reference.calls, reference.cpuTotalMs), requests: shape };
    }
    const row: DurationRow = {
      endpoint: endpoint.name,
      route,
      firstMs: round(median(own.firstMs)),
      ...ownFigures,
      ...(bareFigures ? { bare: bareFigures, cpuRatio: round(median(ratios)) } : {}),
      memorySize,
      lambdaMs: 0,
    };
    log(
      `  ${endpoint.name.padEnd(28)} CPU ${f(row.cpuMs, 3)} ms/call` +
        (bareFigures ? ` vs bare SDK ${f(bareFigures.cpuMs, 3)} (${f(row.cpuRatio!)}×)` : '') +
        `, wait ${f(row.waitMs, 2)} ms`,
    );
    rows.push(row);
  }
  const profile = async (): Promise<CallProfile[]> => {
    const worst = rows.filter((row) => row.cpuRatio !== undefined).reduce((a, b) => (b.cpuRatio! > a.cpuRatio! ? b : a));
    const dir = join(scratch, 'call-profiles');
    const bareReadable = await readableBundle(join(projectRoot, 'bench', 'reference', 'bare-sdk.ts'), join(dir, 'bare', 'index.mjs'));
    const profiles: CallProfile[] = [];
    // The $ budget's subject (the endpoint §1 profiles too), and whichever read has the highest ratio.
    for (const name of [...new Set([PROFILED.endpoint, worst.endpoint])]) {
      const { handler, events, requests, env } = inputs.get(name)!;
      const slug = name.replace(/[^A-Za-z]+/g, '-');
      const readable = await readableBundle(handlerEntry(handler), join(dir, slug, 'index.mjs'));
      const files = { events: join(dir, `${slug}.events.json`), out: join(dir, `${slug}.out.json`) };
      const { warmUp } = CALLS.read;
      const calls = events.length - warmUp;
      await invoke(readable, events, files, warmUp, { ...env, CPU_PROFILE: join(dir, `${slug}.handler.cpuprofile`) });
      const replays = Array.from({ length: events.length }, () => requests);
      await invoke(bareReadable, replays, files, warmUp, { ...env, CPU_PROFILE: join(dir, `${slug}.bare.cpuprofile`) });
      const own = await partsOf(readable, join(dir, `${slug}.handler.cpuprofile`), calls);
      const reference = await partsOf(bareReadable, join(dir, `${slug}.bare.cpuprofile`), calls);
      const parts = [...PARTS.map((p) => p.name), NODE]
        .map((part) => ({ part, handlerMs: round(own[part] ?? 0, 3), bareMs: round(reference[part] ?? 0, 3) }))
        .filter((p) => p.handlerMs > 0 || p.bareMs > 0);
      log(`  profile of ${name}: ${parts.map((p) => `${p.part} ${f(p.handlerMs, 3)}/${f(p.bareMs, 3)}`).join('; ')}`);
      profiles.push({ endpoint: name, parts });
    }
    return profiles;
  };
  return { rows, profile };
}

/** Dollars per million calls for the Lambda time of `ms` at `mb` (billed in whole ms). */
const lambdaDollars = (mb: number, ms: number) => (mb / 1024) * (Math.ceil(ms) / 1000) * prices.lambdaArmPerGbSecond * 1e6;

export function costs(durations: DurationRow[], capacity: CapacityRow[]): CostRow[] {
  return durations.map((duration) => {
    const units = capacity.find((c) => c.endpoint === duration.endpoint)!.aws;
    const row = {
      endpoint: duration.endpoint,
      billedMs: Math.ceil(duration.lambdaMs),
      readUnits: units.read,
      writeUnits: units.write,
      httpApi: prices.httpApiPerMillion,
      lambdaRequests: prices.lambdaRequestsPerMillion,
      lambdaDuration: lambdaDollars(duration.memorySize, duration.lambdaMs),
      dynamodb: units.read * prices.dynamodbReadPerMillionUnits + units.write * prices.dynamodbWritePerMillionUnits,
    };
    return { ...row, total: row.httpApi + row.lambdaRequests + row.lambdaDuration + row.dynamodb };
  });
}

/** HTTP API, the Lambda request and one strongly consistent read of one item: the least a read costs per million. */
export const READ_FLOOR = prices.httpApiPerMillion + prices.lambdaRequestsPerMillion + prices.dynamodbReadPerMillionUnits;

/** The memory sizes the model prices, and what it assumes (section 6 states both). */
export const MEMORY_MODEL = {
  sizes: [128, 256, 512, 768, 1024, 1536, MB_PER_VCPU],
  /** Share of calls that start a new execution environment (its init is billed). */
  coldShare: 0.01,
  /**
   * The latency the sizes are chosen within: the handler's own time per call at the 99th
   * percentile (its CPU at the size's vCPU share), and a cold start's module load. DynamoDB's
   * wait is left out: the memory size does not change it, and DynamoDB Local's is not AWS's.
   * 100 ms of the handler's own keeps a request's p99 on AWS (API Gateway, Lambda and DynamoDB
   * add a few tens of ms) well under the ~200 ms at which a person at a client notices a wait;
   * between sizes within it, cost decides.
   */
  handlerP99Ms: 100,
  coldLoadMs: 1000,
};

type Kind = 'read' | 'write';
const kindOf = (row: DurationRow): Kind => (isRead(row.endpoint) ? 'read' : 'write');

export interface MemoryChoice {
  route: string;
  kind: Kind;
  /** Per size: warm ms (median, DynamoDB's wait included), the handler's p99 ms, cold module load ms, Lambda $ per million (warm + cold share). */
  sizes: { mb: number; warmMs: number; p99Ms: number; coldMs: number; dollars: number; within: boolean }[];
  /** The cheapest size within the latency (the fastest, if none is), and the one configured. */
  best: number;
  configured: number;
}

/** For each function: what each size would cost and how fast it would be, from the warm figures and the module load. */
export function memoryChoices(durations: DurationRow[], coldStart: ColdStartRow[]): MemoryChoice[] {
  const seen = new Set<string>();
  return durations
    .filter((row) => !seen.has(row.route) && seen.add(row.route))
    .map((row) => {
      const kind = kindOf(row);
      const load = coldStart.find((c) => c.name === row.route)?.loadMs ?? 0;
      const sizes = MEMORY_MODEL.sizes.map((mb) => {
        const scale = Math.max(1, MB_PER_VCPU / mb);
        const warmMs = row.waitMs + row.cpuMs * scale;
        const p99Ms = row.cpuP99 * scale;
        const coldMs = load * scale;
        const dollars = lambdaDollars(mb, warmMs) + MEMORY_MODEL.coldShare * lambdaDollars(mb, coldMs);
        const within = p99Ms <= MEMORY_MODEL.handlerP99Ms && coldMs <= MEMORY_MODEL.coldLoadMs;
        return { mb, warmMs: round(warmMs, 1), p99Ms: round(p99Ms, 1), coldMs: round(coldMs), dollars: round(dollars, 4), within };
      });
      const candidates = sizes.filter((size) => size.within);
      const best = candidates.length ? candidates.reduce((a, b) => (b.dollars < a.dollars ? b : a)).mb : sizes.at(-1)!.mb;
      return { route: row.route, kind, sizes, best, configured: row.memorySize };
    });
}

/**
 * One size per kind (lib/function-settings.ts): the cheapest, summed over the kind's functions,
 * at which every one of them is within the latency (the largest size, if none is).
 */
export function kindChoices(
  choices: MemoryChoice[],
): Record<Kind, { mb: number; dollars: number; configured: number; configuredDollars: number }> {
  const pick = (kind: Kind) => {
    const mine = choices.filter((c) => c.kind === kind);
    const totals = MEMORY_MODEL.sizes.map((mb) => ({
      mb,
      dollars: round(
        mine.reduce((sum, c) => sum + c.sizes.find((size) => size.mb === mb)!.dollars, 0),
        4,
      ),
      within: mine.every((c) => c.sizes.find((size) => size.mb === mb)!.within),
    }));
    const candidates = totals.filter((t) => t.within);
    const chosen = candidates.length ? candidates.reduce((a, b) => (b.dollars < a.dollars ? b : a)) : totals.at(-1)!;
    const configured = mine[0]?.configured ?? 0;
    const configuredDollars = totals.find((t) => t.mb === configured)?.dollars ?? Number.NaN;
    return { mb: chosen.mb, dollars: chosen.dollars, configured, configuredDollars };
  };
  return { read: pick('read'), write: pick('write') };
}

/** A read's CPU per call by part, handler and bare client side by side. */
function profileTable({ endpoint, parts }: CallProfile): string {
  const total = (key: 'handlerMs' | 'bareMs') => parts.reduce((sum, p) => sum + p[key], 0);
  return `**Where ${endpoint}'s CPU goes**, per call, from a sampling profile of the measured calls (\`bench/scenarios/call-profile.ts\`:
the same bundles unminified, each sample charged to the module it ran in; the profiler's own cost makes the totals
higher than above, the shares are what to read):

${table(
  ['Part', 'handler ms', 'bare SDK ms'],
  [
    ...parts.map((p) => [p.part, f(p.handlerMs, 3), f(p.bareMs, 3)]),
    ['**total**', `**${f(total('handlerMs'), 3)}**`, `**${f(total('bareMs'), 3)}**`],
  ],
)}
`;
}

export function costSection(
  durations: DurationRow[],
  cost: CostRow[],
  coldStart: ColdStartRow[],
  budget: number,
  callProfiles: CallProfile[] = [],
): string {
  const doc = cost.find((row) => row.endpoint === PROFILED.endpoint)!;
  const docDuration = durations.find((row) => row.endpoint === PROFILED.endpoint)!;
  const reads = durations.filter((row) => row.bare);
  const choices = memoryChoices(durations, coldStart);
  const kinds = kindChoices(choices);
  const docChoice = choices.find((c) => c.route === docDuration.route)!;
  const { warmUp, measured } = CALLS.read;
  return `## 5. Cost

Dollars per million calls on AWS, ${prices.region}, list prices checked on **${prices.checked}** (\`bench/prices.ts\`): HTTP API
$${f(prices.httpApiPerMillion)} per million requests; Lambda $${f(prices.lambdaRequestsPerMillion)} per million requests and $${prices.lambdaArmPerGbSecond} per GB-second
(arm64); DynamoDB on-demand $${f(prices.dynamodbReadPerMillionUnits, 3)} per million RRU and $${f(prices.dynamodbWritePerMillionUnits, 3)} per million WRU. Free tiers,
logs and data transfer are left out.

**Warm CPU per call.** Each function's bundle, called in a fresh Node process with API Gateway events against
DynamoDB Local, \`LOG_LEVEL=INFO\` as deployed: ${warmUp} calls to warm up, then ${measured} measured (writes ${CALLS.write.warmUp} and
${CALLS.write.measured}). CPU is the process's CPU over the measured calls divided by their number (\`process.cpuUsage\`, garbage
collection included, DynamoDB's wait not); the wait is the median of wall − CPU per call. **Bare SDK**: the same
DynamoDB requests, captured from the handler through a recording proxy, made the same number of times by a plain
low-level client bundled the same way (\`bench/reference/bare-sdk.ts\`): what the SDK alone costs for that work.
For each read, handler and bare client take ${ROUNDS} turns (a fresh process each, ${warmUp} calls to warm up, a third of the
measured calls); the ratio is the median of the turns' ratios.

${table(
  ['Endpoint', 'requests', 'handler CPU ms', 'p99', 'bare SDK CPU ms', 'p99', 'ratio', 'wait ms'],
  reads.map((row) => [
    row.endpoint,
    row.bare!.requests,
    f(row.cpuMs, 3),
    f(row.cpuP99, 3),
    f(row.bare!.cpuMs, 3),
    f(row.bare!.cpuP99, 3),
    `**${f(row.cpuRatio!)}**`,
    f(row.waitMs),
  ]),
)}

${callProfiles.map((p) => profileTable(p)).join('\n')}
Writes (no bare reference: a replayed transaction fails its conditions):

${table(
  ['Endpoint', 'CPU ms', 'p99', 'wait ms', 'first call ms'],
  durations.filter((row) => !row.bare).map((row) => [row.endpoint, f(row.cpuMs, 3), f(row.cpuP99, 3), f(row.waitMs), f(row.firstMs, 1)]),
)}

**Cost.** On Lambda the CPU part is scaled by 1,769 MB / the function's memory (one vCPU at ${MB_PER_VCPU} MB), the wait kept as
measured (on AWS a DynamoDB round trip is a few ms, as here); Lambda bills whole ms.

${table(
  ['Endpoint', 'MB', 'Billed ms', 'RRU / WRU', 'HTTP API', 'Lambda requests', 'Lambda duration', 'DynamoDB', 'Total per million'],
  cost.map((r) => [
    r.endpoint,
    durations.find((d) => d.endpoint === r.endpoint)!.memorySize,
    r.billedMs,
    `${r.readUnits} / ${r.writeUnits}`,
    ...[r.httpApi, r.lambdaRequests, r.lambdaDuration, r.dynamodb].map(usd),
    `**${usd(r.total)}**`,
  ]),
)}

**GET /document/{id} and the $${f(budget)} budget.** HTTP API and the Lambda request cost
$${f(prices.httpApiPerMillion + prices.lambdaRequestsPerMillion)} per million before any code runs; the strongly consistent read the contract's
read-your-writes needs makes it ${usd(READ_FLOOR)}, and the caller's role, read in the same request (revocation is
immediate), one more RRU: **${usd(READ_FLOOR + prices.dynamodbReadPerMillionUnits)} with no Lambda time at all**. ${doc.billedMs} ms at ${docDuration.memorySize} MB add
${usd(doc.lambdaDuration)}: **${usd(doc.total)}**.

## 6. Memory size

Each function priced at each size from its warm figures above and its module load (§4), both scaled by the vCPU
share (1 vCPU at ${MB_PER_VCPU} MB): a warm call's duration (DynamoDB's wait included), the handler's own p99, a cold
start's module load (billed as init), and Lambda's dollars per million calls with ${f(MEMORY_MODEL.coldShare * 100, 0)}% of calls cold.
**The latency stated:** the handler's own p99 (its CPU at the size; DynamoDB's wait is the same at every size, and
DynamoDB Local's is not AWS's) within ${MEMORY_MODEL.handlerP99Ms} ms, a cold module load within ${f(MEMORY_MODEL.coldLoadMs / 1000, 0)} s: API
Gateway, Lambda and DynamoDB add a few tens of ms on AWS, and the whole stays well under the ~200 ms at which a
person at a client notices a wait. Within it, the cheapest size (the sizes' Lambda costs differ by cents per million
against the dollars every call costs anyway); one size for the reads and one for the writes (\`lib/function-settings.ts\`,
which the stack reads): the cheapest, summed over the kind's functions, at which every one of them is within.
A p99 moves with the machine from run to run, so a size is changed only when runs agree.

${table(
  ['Functions', 'size chosen', 'their Lambda $ per million, summed', 'configured'],
  (['read', 'write'] as const).map((kind) => [
    `${kind}s (${choices.filter((c) => c.kind === kind).length})`,
    kinds[kind].mb,
    usd(kinds[kind].dollars),
    kinds[kind].configured === kinds[kind].mb ? `**${kinds[kind].configured}**` : kinds[kind].configured,
  ]),
)}

GET /document/{id}:

${table(
  ['Memory MB', 'warm ms', 'handler p99 ms', 'cold load ms', 'Lambda $ per million', 'within the latency'],
  docChoice.sizes.map((size) => [
    size.mb === docChoice.configured ? `**${size.mb}** (configured)` : size.mb,
    f(size.warmMs, 1),
    f(size.p99Ms, 1),
    f(size.coldMs, 0),
    usd(size.dollars),
    size.within ? 'yes' : 'no',
  ]),
)}

Every function: the cheapest size within the latency for it alone, and the one configured for its kind:

${table(
  [
    'Function',
    'cheapest within the latency',
    'its $ per million',
    'handler p99 ms there',
    'configured',
    'its $ per million',
    'handler p99 ms',
  ],
  choices.map((c) => {
    const at = (mb: number) => c.sizes.find((size) => size.mb === mb);
    return [
      c.route,
      c.best,
      usd(at(c.best)!.dollars),
      f(at(c.best)!.p99Ms, 1),
      c.configured === c.best ? `**${c.configured}**` : c.configured,
      at(c.configured) ? usd(at(c.configured)!.dollars) : '—',
      at(c.configured) ? f(at(c.configured)!.p99Ms, 1) : '—',
    ];
  }),
)}
`;
}
