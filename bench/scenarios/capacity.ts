/**
 * Round trips and capacity: per endpoint, the DynamoDB requests one HTTP call makes, in how
 * many round trips, and the capacity they consume — as DynamoDB Local reports it and as AWS
 * would bill it (bench/recorder.ts) — against the minimum (bench/endpoints.ts). Where the
 * throughput table has a baseline, its store call is recorded too: it must send the same
 * requests, or it is not the same work.
 */
import { callsOf, endpoints, requestOf, statusOf } from '../endpoints';
import { send } from '../load';
import { inWaves, operations, type Touched, unitsOf } from '../recorder';
import type { CapacityRow } from '../results';
import type { Scenario } from '../scenario';

/** The touched items the minimum asks for, each required kind matched once. */
function required(endpoint: string, touched: Touched[], kinds: string[]): Touched[] {
  const wanted = [...kinds];
  const kept = touched.filter((item) => wanted.includes(item.kind) && wanted.splice(wanted.indexOf(item.kind), 1));
  // A minimum that names an item the endpoint never touched is out of date, and would price too little.
  if (wanted.length) throw new Error(`${endpoint}: bench/endpoints.ts asks for ${wanted.join(', ')}, which it did not touch`);
  return kept;
}
const units = (items: Touched[]) => items.reduce((total, item) => total + item.units, 0);

export const capacity: Scenario = {
  name: 'capacity',
  title: 'round trips and capacity',
  run: async ({ service, target, fixture, log }) => {
    const rows: CapacityRow[] = [];
    // BENCH_ENDPOINTS=/links,/s/ measures only the endpoints whose name holds one of these.
    const only = (process.env.BENCH_ENDPOINTS ?? '').split(',').filter(Boolean);
    for (const endpoint of endpoints.filter((e) => only.length === 0 || only.some((part) => e.name.includes(part)))) {
      const call = await callsOf(endpoint, 2, (kind, count) => service.targets(kind, count));
      await service.settled(); // the worker idle: what it does for the targets is not the endpoint's
      await service.startRecording();
      const response = await send(target, requestOf(endpoint, fixture, call(0)));
      const recorded = await service.stopRecording();
      if (response.status !== statusOf(endpoint)) throw new Error(`${endpoint.name}: ${response.status} ${JSON.stringify(response.body)}`);
      await service.settled();
      const direct = endpoint.store && operations(await service.recordStoreCall(endpoint.name, call(1)));
      if (direct !== undefined && direct !== operations(recorded))
        throw new Error(`${endpoint.name}: the endpoint sent ${operations(recorded)}, its store call ${direct} (bench/endpoints.ts)`);
      const touched = recorded.flatMap((r) => r.touched);
      const [reads, writes] = [touched.filter((t) => t.action === 'read'), touched.filter((t) => t.action === 'write')];
      const waves = inWaves(recorded);
      const { rru, wru, localRcu, localWcu } = unitsOf(recorded);
      const { minimum } = endpoint;
      rows.push({
        endpoint: endpoint.name,
        requests: waves.map((wave) => wave.map((r) => r.operation).join(' ∥ ')).join(' → '),
        roundTrips: waves.length,
        minimumRoundTrips: minimum.roundTrips,
        items: { reads: reads.map((t) => t.kind), writes: writes.map((t) => t.kind) },
        local: { read: localRcu, write: localWcu },
        aws: { read: rru, write: wru },
        minimum: {
          read: units(required(endpoint.name, reads, minimum.reads)),
          write: units(required(endpoint.name, writes, minimum.writes)),
        },
      });
      log(`  ${endpoint.name.padEnd(28)} ${rows.at(-1)!.requests.padEnd(36)} ${rru} RRU ${wru} WRU`);
    }
    return { capacity: rows };
  },
};
