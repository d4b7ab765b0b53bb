/**
 * Throughput and latency: each endpoint with a store call (bench/endpoints.ts) through the local server
 * (autocannon, 1 and 32 connections) against the baseline, its store call made directly in the
 * service process as many at a time, back to back. The budgeted pair (PROFILED) runs three
 * rounds, the sides taking turns; its median round is kept. Absolute numbers drift; the ratio holds.
 */
import { callsOf, type Endpoint, endpoints, requestOf, statusOf } from '../endpoints';
import { hammer, median } from '../load';
import { f } from '../markdown';
import { type Latency, PROFILED, type ThroughputRow } from '../results';
import type { Bench, Scenario } from '../scenario';

const WARMUP_SECONDS = 1;
/** Calls prepared per second of a run: well above this machine's ~150 writes/s, so no run runs out of targets. */
const CALLS_PER_SECOND = 800;

/** One side's run, prepared first (what its calls change is made) so that only the run is measured. */
async function prepare(
  { service, target, fixture }: Bench,
  endpoint: Endpoint,
  side: 'service' | 'baseline',
  connections: number,
  seconds: number,
) {
  const count = Math.ceil(seconds * CALLS_PER_SECOND);
  if (side === 'baseline') {
    await service.prepareStoreLoad(endpoint.name, count);
    return () => service.storeLoad(connections, seconds);
  }
  const call = await callsOf(endpoint, count, (kind, n) => service.targets(kind, n));
  let n = 0;
  return async (): Promise<Latency> =>
    (await hammer(target, () => requestOf(endpoint, fixture, call(n++)), statusOf(endpoint), connections, seconds)).latency;
}

async function measure(bench: Bench, endpoint: Endpoint, side: 'service' | 'baseline', connections: number) {
  await (await prepare(bench, endpoint, side, connections, WARMUP_SECONDS))();
  return (await prepare(bench, endpoint, side, connections, bench.seconds))();
}

export const throughput: Scenario = {
  name: 'throughput',
  title: 'throughput and latency, service vs its store calls made directly',
  async run(bench) {
    const measured = endpoints.filter((e) => e.store);
    // Both sides JIT-compile first: otherwise the first endpoint is measured half-compiled.
    for (const endpoint of measured.filter((e) => e.targets === undefined)) {
      for (const side of ['service', 'baseline'] as const) await (await prepare(bench, endpoint, side, 8, side === 'service' ? 2 : 1))();
    }
    const rows: ThroughputRow[] = [];
    for (const endpoint of measured) {
      for (const concurrency of [1, 32]) {
        const profiled = endpoint.name === PROFILED.endpoint && concurrency === PROFILED.concurrency;
        const rounds: ThroughputRow[] = [];
        for (let round = 0; round < (profiled ? 3 : 1); round++) {
          const service = await measure(bench, endpoint, 'service', concurrency);
          const baseline = await measure(bench, endpoint, 'baseline', concurrency);
          rounds.push({ endpoint: endpoint.name, concurrency, service, baseline, ratio: service.rps / baseline.rps });
        }
        const row = rounds.find((r) => r.ratio === median(rounds.map((r) => r.ratio)))!;
        rows.push(profiled ? { ...row, ratios: rounds.map((r) => r.ratio) } : row);
        const errors = row.service.errors + row.baseline.errors;
        bench.log(
          `  ${endpoint.name.padEnd(28)} c=${String(concurrency).padEnd(3)} service ${f(row.service.rps, 0).padStart(5)} req/s, ` +
            `baseline ${f(row.baseline.rps, 0).padStart(5)} req/s, ratio ${f(row.ratio)}${errors ? `  (${errors} errors)` : ''}`,
        );
      }
    }
    return { throughput: rows };
  },
};
