/**
 * Where the service process spends its CPU during a run, by part of the stack: the CPU
 * profile (node:inspector) of the process, each sample charged to the innermost frame that
 * belongs to a known part. Run in the service process, around a measured run.
 */
import { Session } from 'node:inspector/promises';

export const parts = [
  { name: 'local API Gateway: routing, event, JWT check', match: /lib\/local\/|node_modules\/jose\// },
  {
    name: 'handler stack: middy, logger, validation, responses',
    match:
      /functions\/core\/http\/|functions\/core\/(schemas|errors|auth|logger)\.ts|node_modules\/(@middy|@aws-lambda-powertools|@aws\/lambda-invoke-store|zod)\//,
  },
  { name: 'store and DynamoDB client', match: /functions\/core\/store\/|functions\/core\/(ids|names|paging|preconditions)\.ts/ },
  { name: 'bench (baseline loop, recorder)', match: /\/bench\// },
] as const;
export const OTHER = 'Node: HTTP, sockets, event loop, GC';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  children?: number[];
}

let session: Session | undefined;

export async function startProfile(): Promise<void> {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
}

/** CPU milliseconds per part (idle time left out). */
export async function stopProfile(): Promise<Record<string, number>> {
  if (!session) throw new Error('no profile running');
  const { profile } = (await session.post('Profiler.stop')) as unknown as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  session.disconnect();
  session = undefined;
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const partOf = new Map<number, string | undefined>();
  const charge = (id: number): string | undefined => {
    if (partOf.has(id)) return partOf.get(id);
    const node = byId.get(id)!;
    const own = parts.find((part) => part.match.test(node.callFrame.url))?.name;
    const up = parent.get(id);
    const result = own ?? (up === undefined ? undefined : charge(up));
    partOf.set(id, result);
    return result;
  };
  const totals: Record<string, number> = {};
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') return;
    const part = charge(id) ?? OTHER;
    totals[part] = (totals[part] ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000;
  });
  return totals;
}
