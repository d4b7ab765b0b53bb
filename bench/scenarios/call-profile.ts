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
import { type CpuProfile, msByPart } from '../profile';

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
  const profile = JSON.parse(await readFile(profileFile, 'utf8')) as CpuProfile;
  const bundleName = bundle.split('/').at(-1)!;
  const totals = msByPart(
    profile,
    ({ url, lineNumber }) => {
      const path = url.endsWith(bundleName) ? moduleAt(lineNumber) : undefined;
      return path === undefined ? undefined : PARTS.find((part) => part.match.test(path))?.name;
    },
    NODE,
  );
  return Object.fromEntries(Object.entries(totals).map(([part, ms]) => [part, ms / calls]));
}
