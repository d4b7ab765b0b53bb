/**
 * Cold start: every function bundled as the stack bundles it (lib/bundling.ts), an empty
 * handler bundled the same way (bench/empty-handler.ts), and each function's floor: a handler
 * that imports the AWS clients it imports and does nothing else (bench/floors/: DynamoDB; with
 * Secrets Manager for the routes that page; with S3 for the file routes): size, minified and gzip, and module
 * load in fresh Node processes, taking turns — from process start until `import()` of the bundle
 * resolved, what a Lambda cold start waits for before the first call. The import alone too.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { fallbackRoute, routes } from '#functions/routes';
import { bundleHandler, esbuildOptions, projectRoot } from '#lib/bundling';
import { median, round } from '../load';
import { EMPTY, FLOOR_PREFIX } from '../results';
import type { Scenario } from '../scenario';

const RUNS = 25;
/** In a fresh process: ms since the process started when the import resolved, and the import's own ms. */
const LOAD = `const started = performance.now(); await import(process.argv[1]); const loaded = performance.now();
process.stdout.write(JSON.stringify({ loadMs: loaded, importMs: loaded - started }));`;
/** What a module reads at load time on Lambda; no network is touched before a request. */
const ENV = {
  AWS_REGION: 'us-east-1',
  LOG_LEVEL: 'INFO',
  TABLE_NAME: 'documents',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

async function loadOnce(file: string): Promise<{ loadMs: number; importMs: number }> {
  const args = ['--input-type=module', '-e', LOAD, pathToFileURL(file).href];
  return JSON.parse((await promisify(execFile)(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...ENV } })).stdout);
}

/** Every route's function and the empty handler bundled into `dir` (the cost scenario calls these files). */
export async function bundleAll(dir: string) {
  const bundles: { name: string; handler: string; file: string }[] = [];
  for (const { name, handler } of [...routes, fallbackRoute])
    bundles.push({ name, handler, file: await bundleHandler(handler, join(dir, name)) });
  const empty = join(dir, 'empty', 'index.mjs');
  await build(esbuildOptions(join(projectRoot, 'bench', 'empty-handler.ts'), empty));
  const floors = [];
  for (const floor of FLOORS) {
    const file = join(dir, floor, 'index.mjs');
    await build(esbuildOptions(join(projectRoot, 'bench', 'floors', `${floor}.ts`), file));
    floors.push({ name: `${FLOOR_PREFIX}${floor}`, handler: `bench/floors/${floor}`, file });
  }
  return [...bundles, { name: EMPTY, handler: 'bench/empty-handler', file: empty }, ...floors];
}

const FLOORS = ['dynamodb', 'dynamodb-secrets', 'dynamodb-s3'] as const;
/**
 * The floor of a bundle, by the clients it holds (DynamoDB's names its API version, the S3 client's endpoint rules
 * `s3express`, Secrets Manager's its signing name); none for a function without DynamoDB (the API reference's).
 */
function floorOf(code: string): string | undefined {
  if (!code.includes('DynamoDB_20120810')) return undefined;
  return `${FLOOR_PREFIX}${code.includes('s3express') ? 'dynamodb-s3' : code.includes('secretsmanager') ? 'dynamodb-secrets' : 'dynamodb'}`;
}

export const coldStart: Scenario = {
  name: 'coldStart',
  title: 'cold start: bundle size and module load',
  async run({ scratch, log }) {
    const bundles = await bundleAll(join(scratch, 'bundles'));
    const samples = new Map(bundles.map((b) => [b.name, [] as { loadMs: number; importMs: number }[]]));
    for (const bundle of bundles) await loadOnce(bundle.file); // the file cache warm for everyone
    for (let i = 0; i < RUNS; i++) for (const bundle of bundles) samples.get(bundle.name)!.push(await loadOnce(bundle.file));
    const empty = median(samples.get(EMPTY)!.map((s) => s.loadMs));
    const rows = await Promise.all(
      bundles.map(async ({ name, handler, file }) => {
        const code = await readFile(file);
        const own = samples.get(name)!;
        const loadMs = median(own.map((s) => s.loadMs));
        const floor = name === EMPTY || name.startsWith(FLOOR_PREFIX) ? undefined : floorOf(code.toString('utf8'));
        const importMs = round(median(own.map((s) => s.importMs)));
        return {
          name,
          handler,
          bytes: code.length,
          gzipBytes: gzipSync(code).length,
          loadMs: round(loadMs),
          importMs,
          loadRatio: round(loadMs / empty),
          ...(floor ? { floor, floorRatio: round(loadMs / median(samples.get(floor)!.map((s) => s.loadMs))) } : {}),
          runs: RUNS,
        };
      }),
    );
    for (const r of rows)
      log(
        `  ${r.name.padEnd(30)} ${(r.bytes / 1024).toFixed(0).padStart(4)} KB, load ${r.loadMs} ms (${r.loadRatio}× empty` +
          `${r.floor ? `, ${r.floorRatio}× ${r.floor}` : ''})`,
      );
    return { coldStart: rows };
  },
};
