/**
 * Throughput and latency: each endpoint through the local server (autocannon, 1 and 32
 * connections) against the baseline, its store call made directly in the service process as
 * many at a time, back to back. Absolute numbers drift on a shared machine; the ratio holds.
 */
import { cpus } from 'node:os';
import { callsOf, type Endpoint, endpoints } from '../endpoints';
import { hammer, type Latency, summarize } from '../load';
import { f, table } from '../markdown';
import { OTHER, parts } from '../profile';
import type { Bench, Scenario } from '../run';

type Side = 'service' | 'baseline';
export interface ThroughputRow extends Record<Side, Latency> {
  endpoint: string;
  concurrency: number;
  /** service rps / baseline rps. */
  ratio: number;
  /** The profiled run: CPU ms per request in the service process by part of the stack, and the runner's. */
  cpuPerRequest?: Record<Side, Record<string, number>>;
  /** The profiled pair's ratio in each of its rounds (`ratio` is their median). */
  ratios?: number[];
}

/** The runner's own CPU: autocannon during a service run, idle during a baseline run. */
export const LOAD_GENERATOR = 'load generator: autocannon (runner process)';
/** Profiled, and measured three times: the budget's pair. */
export const PROFILED = { endpoint: 'GET /document/{id}', concurrency: 32 };
const WARMUP_SECONDS = 1;
/** Calls prepared per second of a run: well above this machine's ~150 writes/s, so no run runs out of documents. */
const CALLS_PER_SECOND = 800;

/** One side's run, prepared first (what its calls change is seeded) so that only the run is measured. */
async function prepare(
  bench: Bench,
  endpoint: Endpoint,
  side: Side,
  connections: number,
  seconds: number,
): Promise<() => Promise<Latency>> {
  const { service, target, fixture } = bench;
  const count = Math.ceil(seconds * CALLS_PER_SECOND);
  if (side === 'baseline') {
    await service.prepareStoreLoad(endpoint.name, count);
    return () => service.storeLoad(connections, seconds);
  }
  const call = await callsOf(endpoint, count, (kind, n) => service.targets(kind, n));
  let n = 0;
  return async () => {
    const run = await hammer(target, () => endpoint.http(fixture, call(n++)), endpoint.status, connections, seconds);
    return summarize(run.latencies, run.seconds, run.errors);
  };
}

/** Runs one side; profiled, it also reports CPU per request by part of the stack. */
async function measure(bench: Bench, endpoint: Endpoint, connections: number, side: Side, profile: boolean) {
  await (await prepare(bench, endpoint, side, connections, WARMUP_SECONDS))();
  const run = await prepare(bench, endpoint, side, connections, bench.seconds);
  if (profile) await bench.service.startProfile();
  const ownCpu = process.cpuUsage();
  const latency = await run();
  if (!profile) return { latency };
  const used = process.cpuUsage(ownCpu);
  const requests = Math.max(1, latency.requests + latency.errors);
  const byPart = Object.entries(await bench.service.stopProfile()).map(([part, ms]) => [part, ms / requests]);
  return { latency, cpu: { ...Object.fromEntries(byPart), [LOAD_GENERATOR]: (used.user + used.system) / 1000 / requests } };
}

export const throughput: Scenario = {
  name: 'throughput',
  title: 'throughput and latency, service vs its store calls made directly',
  run: async (bench) => ({ throughput: await measureThroughput(bench) }),
};

async function measureThroughput(bench: Bench): Promise<ThroughputRow[]> {
  const measured = endpoints.filter((e) => e.throughput);
  // Both sides JIT-compile first: otherwise the first endpoint is measured half-compiled (about half its warm rate).
  for (const endpoint of measured.filter((e) => e.targets === undefined)) {
    for (const side of ['service', 'baseline'] as const) await (await prepare(bench, endpoint, side, 8, side === 'service' ? 2 : 1))();
  }
  const rows: ThroughputRow[] = [];
  for (const endpoint of measured) {
    for (const concurrency of [1, 32]) {
      const profiled = endpoint.name === PROFILED.endpoint && concurrency === PROFILED.concurrency;
      const rounds: ThroughputRow[] = [];
      for (let round = 0; round < (profiled ? 3 : 1); round++) {
        const service = await measure(bench, endpoint, concurrency, 'service', profiled && round === 0);
        const baseline = await measure(bench, endpoint, concurrency, 'baseline', profiled && round === 0);
        const ratio = service.latency.rps / baseline.latency.rps;
        const row: ThroughputRow = { endpoint: endpoint.name, concurrency, service: service.latency, baseline: baseline.latency, ratio };
        if (service.cpu && baseline.cpu) row.cpuPerRequest = { service: service.cpu, baseline: baseline.cpu };
        rounds.push(row);
      }
      const row = {
        ...[...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)]!,
        cpuPerRequest: rounds[0]!.cpuPerRequest,
      };
      if (profiled) row.ratios = rounds.map((r) => r.ratio);
      rows.push(row);
      const errors = row.service.errors + row.baseline.errors;
      bench.log(
        `  ${endpoint.name.padEnd(28)} c=${String(concurrency).padEnd(3)} service ${f(row.service.rps, 0).padStart(5)} req/s, ` +
          `baseline ${f(row.baseline.rps, 0).padStart(5)} req/s, ratio ${f(row.ratio)}${errors ? `  (${errors} errors)` : ''}`,
      );
    }
  }
  return rows;
}

export function throughputSection(rows: ThroughputRow[], seconds: number): string {
  const profiled = rows.find((row) => row.cpuPerRequest)!;
  const cpu = profiled.cpuPerRequest!;
  const names = [...parts.map((p) => p.name), OTHER];
  const total = (side: Side) => names.reduce((sum, name) => sum + (cpu[side][name] ?? 0), 0);
  const ms = (side: Side, name: string) => f(cpu[side][name] ?? 0, 3);
  const latency = (l: Latency) => [f(l.rps, 0), f(l.p50), f(l.p99)];
  return `## 1. Throughput and latency

Each endpoint through the local server (what \`npm start\` runs) under autocannon, then the **baseline**: the
endpoint's store call (\`bench/endpoints.ts\`) made directly in the service process, without HTTP, JWT, middy or
validation, as many in flight; ${seconds} s each after a ${WARMUP_SECONDS} s warm-up. Latencies in ms, per response. Ratio:
service / baseline requests per second.

${table(
  ['Endpoint', 'c', 'service req/s', 'p50', 'p99', 'baseline req/s', 'p50', 'p99', 'ratio', 'errors'],
  rows.map((r) => [
    r.endpoint,
    r.concurrency,
    ...latency(r.service),
    ...latency(r.baseline),
    `**${f(r.ratio)}**`,
    r.service.errors + r.baseline.errors,
  ]),
)}

${PROFILED.endpoint} at concurrency ${PROFILED.concurrency} (the budgeted pair) ran three times, the sides taking turns:
ratios ${profiled.ratios?.map((x) => f(x)).join(', ')}; the table shows the median round.

### Where the CPU goes (${PROFILED.endpoint}, concurrency ${PROFILED.concurrency})

CPU ms per request in the service process, from a sampling profile of the measured run (\`bench/profile.ts\`),
and of the runner. ${cpus().length} cores, shared by DynamoDB Local (Java), the service process and autocannon.

${table(
  ['Part', 'service run', 'baseline run'],
  [
    ...names.map((name) => [name, ms('service', name), ms('baseline', name)]),
    ['**service process, total**', `**${f(total('service'), 3)}**`, `**${f(total('baseline'), 3)}**`],
    [LOAD_GENERATOR, ms('service', LOAD_GENERATOR), ms('baseline', LOAD_GENERATOR)],
  ],
)}

Through the local server each request pays, beyond the store, the SDK and DynamoDB Local, for the local API
Gateway (${ms('service', parts[0].name)} ms: routing, the event, the RS256 JWT check with \`jose\`), the handler stack
(${ms('service', parts[1].name)} ms: middy, logger, zod, the response), the HTTP server (in "Node") and autocannon on the same
cores: ${f(total('service') - total('baseline') + (cpu.service[LOAD_GENERATOR] ?? 0))} ms of CPU per request more. What would move the ratio is not the data layer:
the JWT check (API Gateway's job on AWS, not billed as Lambda time) and the handler stack.
`;
}
