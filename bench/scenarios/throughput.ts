/**
 * Scenario 1: requests per second and latency of each endpoint through the local server
 * (autocannon, concurrency 1 and 32), side by side with the baseline — the same DynamoDB
 * requests made directly with the same SDK client (baseline.ts). Absolute numbers drift on a
 * shared machine; the ratio service / baseline, measured back to back, holds.
 */
import type autocannon from 'autocannon';
import type { Endpoint, Request } from '../endpoints';
import { CONTENT_BYTES, type Fixture } from '../fixture';
import { hammer } from '../hammer';
import type { Recorded } from '../recorder';
import type { ServiceClient } from '../run';
import { type Latency, summarize } from '../stats';

export interface ThroughputRow {
  endpoint: string;
  concurrency: number;
  service: Latency;
  baseline: Latency;
  /** service rps / baseline rps. */
  ratio: number;
  /** For the profiled run: CPU ms per request of the service process, by part of the stack, and of autocannon. */
  cpuPerRequest?: { service: Record<string, number>; baseline: Record<string, number> };
  /** The budgeted pair's ratio in each of its rounds (`ratio` is their median). */
  ratios?: number[];
}

/** This (runner) process's CPU: autocannon during a service run, idle during a baseline run. */
export const LOAD_GENERATOR = 'load generator: autocannon (runner process)';

/** The run whose CPU is broken down by part of the stack (bench/profile.ts). */
export const PROFILED = { endpoint: 'GET /document/{id}', concurrency: 32 };

export interface Timing {
  warmupSeconds: number;
  seconds: number;
}

/** Enough documents for a DELETE or PUT run at the rates this machine reaches, warm-up included. */
const POOL = 4000;

/** The endpoint through the local server, `next()` making each request. */
async function load(
  url: string,
  token: string,
  method: string,
  next: () => Request,
  expected: number,
  connections: number,
  seconds: number,
): Promise<Latency> {
  const result = await hammer(
    {
      url,
      connections,
      duration: seconds,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      requests: [
        {
          method: method as NonNullable<autocannon.Request['method']>,
          setupRequest: (request) => {
            const { path, body } = next();
            return { ...request, path, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
          },
        },
      ],
    },
    expected,
  );
  return summarize(result.latencies, result.seconds, result.errors);
}

async function endpointRequests(endpoint: Endpoint): Promise<() => Request> {
  const requests = await endpoint.requests(1);
  return () => requests(0);
}

export async function measureThroughput(
  service: ServiceClient,
  fixture: Fixture,
  list: Endpoint[],
  recorded: Map<string, Recorded[]>,
  timing: Timing,
  progress: (line: string) => void,
): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  // Both sides JIT-compile the read paths before the first measured run: otherwise whichever
  // endpoint comes first is measured half-compiled (about half its warm rate here).
  for (const endpoint of list.filter((e) => e.baseline === 'replay')) {
    await load(
      fixture.api.url,
      fixture.api.token,
      endpoint.method,
      await endpointRequests(endpoint),
      endpoint.status,
      8,
      2 * timing.warmupSeconds,
    );
    await (await baselineRunner(service, fixture, endpoint, recorded))(8, timing.warmupSeconds);
  }
  for (const endpoint of list.filter((e) => e.baseline)) {
    for (const concurrency of [1, 32]) {
      const requests = await endpoint.requests(POOL);
      let n = 0;
      const next = () => requests(n++);
      const run = (seconds: number) =>
        load(fixture.api.url, fixture.api.token, endpoint.method, next, endpoint.status, concurrency, seconds);
      const profiled = endpoint.name === PROFILED.endpoint && concurrency === PROFILED.concurrency;
      const baseline = await baselineRunner(service, fixture, endpoint, recorded);
      const sides = {
        service: (seconds: number) => run(seconds),
        baseline: (seconds: number) => baseline(concurrency, seconds),
      };
      // The budgeted pair takes turns three times; its ratio is the median of the three.
      const rounds = profiled ? 3 : 1;
      const results: { service: Latency; baseline: Latency; cpu?: Record<'service' | 'baseline', Record<string, number>> }[] = [];
      for (let round = 0; round < rounds; round++) {
        const measured: Partial<Record<'service' | 'baseline', Latency>> = {};
        const cpu: Partial<Record<'service' | 'baseline', Record<string, number>>> = {};
        for (const side of ['service', 'baseline'] as const) {
          await sides[side](timing.warmupSeconds);
          const profile = profiled && round === 0;
          if (profile) await service.startProfile();
          const ownCpu = process.cpuUsage();
          const result = await sides[side](timing.seconds);
          if (profile) {
            const used = process.cpuUsage(ownCpu);
            const requests = Math.max(1, result.requests + result.errors);
            cpu[side] = {
              ...Object.fromEntries(Object.entries(await service.stopProfile()).map(([part, ms]) => [part, ms / requests])),
              [LOAD_GENERATOR]: (used.user + used.system) / 1000 / requests,
            };
          }
          measured[side] = result;
        }
        results.push({
          service: measured.service!,
          baseline: measured.baseline!,
          ...(cpu.service ? { cpu: cpu as Record<'service' | 'baseline', Record<string, number>> } : {}),
        });
      }
      const byRatio = [...results].sort((a, b) => a.service.rps / a.baseline.rps - b.service.rps / b.baseline.rps);
      const { service: serviceResult, baseline: baselineResult } = byRatio[Math.floor(byRatio.length / 2)]!;
      const serviceCpu = results[0]!.cpu?.service;
      const baselineCpu = results[0]!.cpu?.baseline;

      const row: ThroughputRow = {
        endpoint: endpoint.name,
        concurrency,
        service: serviceResult,
        baseline: baselineResult,
        ratio: serviceResult.rps / baselineResult.rps,
        ...(serviceCpu && baselineCpu ? { cpuPerRequest: { service: serviceCpu, baseline: baselineCpu } } : {}),
        ...(rounds > 1 ? { ratios: results.map((r) => r.service.rps / r.baseline.rps) } : {}),
      };
      rows.push(row);
      progress(
        `  ${endpoint.name.padEnd(28)} c=${String(concurrency).padEnd(3)} service ${serviceResult.rps.toFixed(0).padStart(5)} req/s, ` +
          `baseline ${baselineResult.rps.toFixed(0).padStart(5)} req/s, ratio ${row.ratio.toFixed(2)}` +
          (serviceResult.errors + baselineResult.errors ? `  (${serviceResult.errors} + ${baselineResult.errors} errors)` : ''),
      );
    }
  }
  return rows;
}

/** The direct-SDK equivalent of an endpoint, run in the service process; `(concurrency, seconds)`. */
async function baselineRunner(service: ServiceClient, fixture: Fixture, endpoint: Endpoint, recorded: Map<string, Recorded[]>) {
  const { userId, repositoryId, writeFolderId } = fixture;
  switch (endpoint.baseline) {
    case 'replay': {
      const requests = recorded.get(endpoint.name);
      if (!requests) throw new Error(`no recorded requests for ${endpoint.name}`);
      return (c: number, s: number) => service.baselineReplay(requests, c, s);
    }
    case 'create':
      return (c: number, s: number) => service.baselineCreate({ userId, repositoryId, folderId: writeFolderId }, CONTENT_BYTES, c, s);
    case 'update': {
      const ids = await fixture.seedWritable(500);
      return (c: number, s: number) => service.baselineUpdate(userId, ids, CONTENT_BYTES, c, s);
    }
    case 'delete': {
      const ids = await fixture.seedWritable(POOL);
      let used = 0;
      // Warm-up and measured run share the pool: each run starts where the last one stopped.
      return async (c: number, s: number) => {
        const result = await service.baselineDelete(userId, ids.slice(used), c, s);
        used += result.requests + result.errors;
        return result;
      };
    }
    default:
      throw new Error(`${endpoint.name} has no baseline`);
  }
}
