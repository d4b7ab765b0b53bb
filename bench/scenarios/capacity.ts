/**
 * Round trips and capacity: per endpoint, the DynamoDB requests one HTTP call makes, in how
 * many round trips, and the capacity they consume — as DynamoDB Local reports it and as AWS
 * would bill it — against the minimum (endpoints.ts). The direct store call is recorded too:
 * the baseline must send the same requests, or it is not the same work.
 */
import { callsOf, endpoints } from '../endpoints';
import { send } from '../load';
import { f, table } from '../markdown';
import { prices } from '../prices';
import { inWaves, type Recorded, type Touched } from '../recorder';
import type { Scenario } from '../run';

export interface CapacityRow {
  endpoint: string;
  /** `A ∥ B`: sent together (one round trip); `A → B`: one after the other. */
  requests: string;
  roundTrips: number;
  minimumRoundTrips: number;
  items: { reads: string[]; writes: string[] };
  local: { read: number; write: number };
  aws: { read: number; write: number };
  minimum: { read: number; write: number };
  why: string;
}

const sequence = (recorded: Recorded[]) => recorded.map((r) => r.operation).join(', ');
const units = (items: Touched[]) => items.reduce((sum, item) => sum + item.units, 0);
const total = (recorded: Recorded[], side: 'read' | 'write') => recorded.reduce((sum, r) => sum + r.local[side], 0);

/** The touched items the minimum asks for, each required kind matched once: extras stay out. */
function required(endpoint: string, touched: Touched[], kinds: string[]): Touched[] {
  const wanted = [...kinds];
  const kept = touched.filter((item) => {
    const at = wanted.indexOf(item.kind);
    if (at !== -1) wanted.splice(at, 1);
    return at !== -1;
  });
  // A minimum that names an item the endpoint never touched is out of date, and would price too little.
  if (wanted.length)
    throw new Error(`${endpoint}: bench/endpoints.ts asks for ${wanted.join(', ')}, which it did not touch (kinds: bench/recorder.ts)`);
  return kept;
}

export const capacity: Scenario = {
  name: 'capacity',
  title: 'round trips and capacity',
  run: async ({ service, target, fixture, log }) => {
    const rows: CapacityRow[] = [];
    for (const endpoint of endpoints) {
      const call = await callsOf(endpoint, 2, (kind, count) => service.targets(kind, count));
      await service.startRecording();
      const response = await send(target, endpoint.http(fixture, call(0)));
      const recorded = await service.stopRecording();
      if (response.status !== endpoint.status) throw new Error(`${endpoint.name}: ${response.status} ${JSON.stringify(response.body)}`);
      const direct = await service.recordStoreCall(endpoint.name, call(1));
      if (sequence(direct) !== sequence(recorded)) {
        throw new Error(
          `${endpoint.name}: the endpoint sent ${sequence(recorded)}, its store call ${sequence(direct)} (bench/endpoints.ts)`,
        );
      }
      const touched = recorded.flatMap((r) => r.touched);
      const reads = touched.filter((t) => t.action === 'read');
      const writes = touched.filter((t) => t.action === 'write');
      const waves = inWaves(recorded);
      const { minimum } = endpoint;
      rows.push({
        endpoint: endpoint.name,
        requests: waves.map((wave) => wave.map((r) => r.operation).join(' ∥ ')).join(' → '),
        roundTrips: waves.length,
        minimumRoundTrips: minimum.roundTrips,
        items: { reads: reads.map((t) => t.kind), writes: writes.map((t) => t.kind) },
        local: { read: total(recorded, 'read'), write: total(recorded, 'write') },
        aws: { read: units(reads), write: units(writes) },
        minimum: {
          read: units(required(endpoint.name, reads, minimum.reads)),
          write: units(required(endpoint.name, writes, minimum.writes)),
        },
        why: minimum.why,
      });
      log(`  ${endpoint.name.padEnd(28)} ${rows.at(-1)!.requests.padEnd(36)} ${rows.at(-1)!.aws.read} RRU ${rows.at(-1)!.aws.write} WRU`);
    }
    return { capacity: rows };
  },
};

const capacityTable = (rows: CapacityRow[]) =>
  table(
    ['Endpoint', 'DynamoDB requests', 'Round trips', 'Items read; written', 'RRU / WRU (AWS)', 'Minimum', 'Local RCU / WCU'],
    rows.map((row) => [
      row.endpoint,
      row.requests,
      `${row.roundTrips}${row.minimumRoundTrips === row.roundTrips ? '' : ` (min ${row.minimumRoundTrips})`}`,
      `${row.items.reads.join(', ') || '—'}; ${row.items.writes.join(', ') || '—'}`,
      `${row.aws.read} / ${row.aws.write}`,
      `${row.minimum.read} / ${row.minimum.write}`,
      `${row.local.read} / ${row.local.write}`,
    ]),
  );

/** bench/access-patterns.md, the table docs/data-model.md links to. */
export const accessPatterns = (rows: CapacityRow[]) => `# Access patterns, measured

Written by \`npm run bench\`: one call of each endpoint with a 1 KB document. How each column is counted:
[results.md §2](results.md#2-round-trips-and-capacity).

${capacityTable(rows)}
`;

export const capacitySection = (rows: CapacityRow[]) => `## 2. Round trips and capacity

One call of each endpoint with a 1 KB document, its DynamoDB requests recorded (\`bench/recorder.ts\`); its store
call made directly sent the same ones. \`A ∥ B\`: sent together, one round trip; \`A → B\`: one after the other.
**AWS RRU / WRU** applies DynamoDB's billing rules to the items' sizes (read before and after each transaction):
1 RRU per 4 KB of each item read strongly consistently (a missing one costs 1), 1 RRU per 4 KB of a Query's page,
2 WRU per KB of the larger image of each transaction item, a ConditionCheck billed as such a write.¹ **Minimum**
counts only the items the endpoint cannot do without (\`bench/endpoints.ts\`). **Local** is what DynamoDB Local
3.3 reports; it under-counts transactions, so plan with the AWS column.

${capacityTable(rows)}

¹ Measured against DynamoDB (AWS's pages do not say): https://martinhicks.dev/articles/what-a-conditional-dynamodb-transaction-costs.

Why changes take two round trips: [docs/data-model.md](../docs/data-model.md#writes-one-transaction-conditions-decide). A create's
one round trip has a price: its ConditionChecks cost 2 WRU each ($${f(2 * prices.dynamodbWritePerMillionUnits)} per million) where the
reads they replace cost 1 RRU ($${f(prices.dynamodbReadPerMillionUnits, 3)}): about $${f(4 * prices.dynamodbWritePerMillionUnits - 4 * prices.dynamodbReadPerMillionUnits)} more per million creates than
read-then-write (two more checks, four fewer reads).
`;
