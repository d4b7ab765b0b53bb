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
  { name: 'bench: the baseline’s loop, IPC, the profiler', match: /\/bench\// },
] as const;
export const OTHER = 'Node: HTTP, sockets, event loop, GC';

let session: Session | undefined;

export async function startProfile(): Promise<void> {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
}

/** A CPU profile as node:inspector returns it (the fields read here). */
export interface CpuProfile {
  nodes: { id: number; callFrame: { url: string; lineNumber: number; functionName: string }; children?: number[] }[];
  samples?: number[];
  timeDeltas?: number[];
}

/**
 * CPU milliseconds per part (idle time left out): each sample is charged to the innermost frame
 * up its stack that `partOf` names a part for (Node's own frames go to the part that called
 * them), or to `other` when none does.
 */
export function msByPart(
  profile: CpuProfile,
  partOf: (frame: CpuProfile['nodes'][number]['callFrame']) => string | undefined,
  other: string,
): Record<string, number> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const charged = new Map<number, string>();
  const charge = (id: number | undefined): string => {
    if (id === undefined) return other;
    if (!charged.has(id)) charged.set(id, partOf(byId.get(id)!.callFrame) ?? charge(parent.get(id)));
    return charged.get(id)!;
  };
  const totals: Record<string, number> = {};
  profile.samples?.forEach((id, i) => {
    if (byId.get(id)!.callFrame.functionName === '(idle)') return;
    const part = charge(id);
    totals[part] = (totals[part] ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000;
  });
  return totals;
}

/** CPU milliseconds per part of the stack (idle time left out). */
export async function stopProfile(): Promise<Record<string, number>> {
  const { profile } = await session!.post('Profiler.stop');
  session!.disconnect();
  return msByPart(profile, (frame) => parts.find((part) => part.match.test(frame.url))?.name, OTHER);
}
