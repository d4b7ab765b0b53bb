/**
 * Where a warm call's CPU goes: a sampling CPU profile (node:inspector, in the invoking process,
 * around the measured calls only) of a handler and of the bare SDK reference making the same
 * requests, both bundled as the stack bundles them but not minified, so that esbuild's
 * `// node_modules/…` and `// functions/…` markers say which module each line comes from. Each
 * sample is charged to the innermost frame of the bundle that belongs to a part (Node's own
 * frames, such as sockets or crypto, to the part that called them); samples with no frame of the
 * bundle are Node's event loop and garbage collection.
 */
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';
import { esbuildOptions } from '#lib/bundling';

export const PARTS = [
  {
    name: 'handler stack: middy, logger, validation, responses',
    match:
      /functions\/core\/(http|schemas|errors|auth|logger|resources)|node_modules\/(@middy|@aws-lambda-powertools|@aws\/lambda-invoke-store|zod)\//,
  },
  {
    name: 'store: keys, records, capacity metrics',
    match: /functions\/core\/store\/|functions\/core\/(ids|names|paging|preconditions)\.ts/,
  },
  { name: 'document client: marshalling', match: /node_modules\/@aws-sdk\/(lib-dynamodb|util-dynamodb)\// },
  { name: 'AWS SDK: client, middleware, HTTP, signing', match: /node_modules\/(@smithy|@aws-sdk|@aws-crypto)\// },
  { name: 'the bare reference itself', match: /bench\/reference\// },
] as const;
export const NODE = 'Node: event loop, sockets, GC (no frame of the bundle)';

/** Bundles `entry` like a function, unminified (`outfile`). */
export async function readableBundle(entry: string, outfile: string): Promise<string> {
  await build({ ...esbuildOptions(entry, outfile), minify: false });
  return outfile;
}

interface Profile {
  nodes: { id: number; callFrame: { url: string; lineNumber: number; functionName: string }; children?: number[] }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** CPU ms per call, by part, from a profile of `calls` calls of the unminified `bundle`. */
export async function partsOf(bundle: string, profileFile: string, calls: number): Promise<Record<string, number>> {
  const lines = (await readFile(bundle, 'utf8')).split('\n');
  // Each module's code follows a `// path` line: the module of line n is the last marker above it.
  const modules: { line: number; path: string }[] = [];
  lines.forEach((text, line) => {
    const marker = /^\/\/ ((node_modules|functions|bench)\/\S+)$/.exec(text);
    if (marker) modules.push({ line, path: marker[1]! });
  });
  const moduleAt = (line: number) => {
    let lo = 0;
    let hi = modules.length - 1;
    let found: string | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (modules[mid]!.line <= line) {
        found = modules[mid]!.path;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
  const profile = JSON.parse(await readFile(profileFile, 'utf8')) as Profile;
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const bundleUrl = bundle.split('/').at(-1)!;
  const partOf = new Map<number, string>();
  const charge = (id: number | undefined): string => {
    if (id === undefined) return NODE;
    if (!partOf.has(id)) {
      const { url, lineNumber } = byId.get(id)!.callFrame;
      const path = url.endsWith(bundleUrl) ? moduleAt(lineNumber) : undefined;
      const part = path === undefined ? undefined : PARTS.find((p) => p.match.test(path))?.name;
      partOf.set(id, part ?? charge(parent.get(id)));
    }
    return partOf.get(id)!;
  };
  const totals: Record<string, number> = {};
  profile.samples?.forEach((id, i) => {
    if (byId.get(id)!.callFrame.functionName === '(idle)') return;
    const part = charge(id);
    totals[part] = (totals[part] ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000 / calls;
  });
  return totals;
}
