/**
 * Scenario 2: per endpoint, the DynamoDB requests one call makes, its round trips, and its
 * consumed capacity — as DynamoDB Local reports it and as AWS would bill it — against the
 * minimum for the items it cannot avoid (endpoints.ts).
 */
import type { ItemKind } from '#core/store/keys';
import type { Endpoint } from '../endpoints';
import type { Api } from '../fixture';
import { inWaves, type Recorded, type Touched } from '../recorder';
import type { ServiceClient } from '../run';

export interface CapacityRow {
  endpoint: string;
  /** Requests by round trip: `A ∥ B` went out together, `A → B` one after the other. */
  requests: string;
  roundTrips: number;
  minimumRoundTrips: number;
  /** Items read and written, by kind. */
  items: { reads: ItemKind[]; writes: ItemKind[] };
  local: { read: number; write: number };
  aws: { read: number; write: number };
  minimum: { read: number; write: number };
  why: string;
  /** The recorded requests, for the baseline to replay. */
  recorded: Recorded[];
}

export async function measureCapacity(service: ServiceClient, api: Api, list: Endpoint[]): Promise<CapacityRow[]> {
  const rows: CapacityRow[] = [];
  for (const endpoint of list) {
    const request = (await endpoint.requests(1))(0);
    await service.startRecording(true);
    const response = await api.call(endpoint.method, request.path, request.body);
    const recorded = await service.stopRecording();
    if (response.status !== endpoint.status) {
      throw new Error(`${endpoint.name}: ${response.status} ${JSON.stringify(response.body)}`);
    }
    const touched = recorded.flatMap((r) => r.touched);
    const reads = touched.filter((t) => t.action === 'read');
    const writes = touched.filter((t) => t.action === 'write');
    const waves = inWaves(recorded);
    rows.push({
      endpoint: endpoint.name,
      requests: waves.map((wave) => wave.map((r) => r.operation).join(' ∥ ')).join(' → '),
      roundTrips: waves.length,
      minimumRoundTrips: endpoint.minimum.roundTrips,
      items: { reads: reads.map((t) => t.kind as ItemKind), writes: writes.map((t) => t.kind as ItemKind) },
      local: {
        read: recorded.reduce((sum, r) => sum + r.local.read, 0),
        write: recorded.reduce((sum, r) => sum + r.local.write, 0),
      },
      aws: { read: units(reads), write: units(writes) },
      minimum: { read: units(required(reads, endpoint.minimum.reads)), write: units(required(writes, endpoint.minimum.writes)) },
      why: endpoint.minimum.why,
      recorded,
    });
  }
  return rows;
}

const units = (items: Touched[]) => items.reduce((sum, item) => sum + item.units, 0);

/** The touched items the minimum asks for (each required kind matched once): extras stay out. */
function required(touched: Touched[], kinds: ItemKind[]): Touched[] {
  const wanted = [...kinds];
  return touched.filter((item) => {
    const at = wanted.indexOf(item.kind as ItemKind);
    if (at === -1) return false;
    wanted.splice(at, 1);
    return true;
  });
}
