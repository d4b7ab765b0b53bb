/**
 * Scenario 4: every function as the stack bundles it (lib/bundling.ts), and an empty handler
 * bundled the same way: size (minified, and gzip), and module-load time in fresh Node
 * processes — from process start until `import()` of the bundle resolved, which is what a
 * Lambda cold start waits for before the first invocation (the Init phase: runtime start plus
 * the handler module's top level). The import alone is reported too.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { fallbackRoute, routes } from '#functions/routes';
import { bundleHandler, esbuildOptions, projectRoot } from '#lib/bundling';
import { median, round } from '../stats';

const run = promisify(execFile);

export interface Bundle {
  name: string;
  handler: string;
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface ColdStartRow extends Omit<Bundle, 'file'> {
  /** Median ms from process start to the module loaded; and of the import() alone. */
  loadMs: number;
  importMs: number;
  /** loadMs / the empty handler's loadMs. */
  loadRatio: number;
  runs: number;
}

export const EMPTY = 'empty handler';

/** Bundles every route's handler, the fallback, and the empty reference into `dir`. */
export async function bundleAll(dir: string): Promise<Bundle[]> {
  const targets = [
    ...routes.map((r) => ({ name: r.name, handler: r.handler })),
    { name: fallbackRoute.name, handler: fallbackRoute.handler },
  ];
  const bundles: Bundle[] = [];
  for (const { name, handler } of targets) {
    const file = await bundleHandler(handler, join(dir, name));
    bundles.push(await sized(name, handler, file));
  }
  for (const [name, file] of Object.entries(REFERENCES)) {
    const out = join(dir, `reference-${file}`, 'index.mjs');
    await mkdir(dirname(out), { recursive: true });
    await build(esbuildOptions(join(projectRoot, 'bench', 'reference', `${file}.ts`), out));
    bundles.push(await sized(name, `bench/reference/${file}`, out));
  }
  return bundles;
}

/**
 * Bundled the same way: the empty handler the budget compares with, and each part of a
 * handler alone, to show what its load is made of.
 */
const REFERENCES = {
  [EMPTY]: 'empty',
  'part: Powertools logger': 'logger',
  'part: zod schemas': 'schemas',
  'part: middy': 'middy',
  'part: store + DynamoDB client': 'store',
};
export const isReference = (name: string) => name in REFERENCES;

async function sized(name: string, handler: string, file: string): Promise<Bundle> {
  const code = await readFile(file);
  return { name, handler, file, bytes: code.length, gzipBytes: gzipSync(code).length };
}

/** In a fresh process: ms since the process started when the import resolved, and the import's own ms. */
const LOAD = `
const started = performance.now();
await import(process.argv[1]);
const loaded = performance.now();
process.stdout.write(JSON.stringify({ loadMs: loaded, importMs: loaded - started }));
`;

async function loadOnce(file: string): Promise<{ loadMs: number; importMs: number }> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', LOAD, pathToFileURL(file).href], {
    // What the module reads at load time on Lambda; no network is touched before a request.
    env: {
      PATH: process.env.PATH ?? '',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'INFO',
      TABLE_NAME: 'documents',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
  return JSON.parse(stdout) as { loadMs: number; importMs: number };
}

/** `runs` fresh processes per bundle, taking turns so that drift on the machine hits all alike. */
export async function measureColdStart(bundles: Bundle[], runs: number): Promise<ColdStartRow[]> {
  const samples = new Map(bundles.map((b) => [b.name, [] as { loadMs: number; importMs: number }[]]));
  for (const bundle of bundles) await loadOnce(bundle.file); // the file cache is warm for everyone
  for (let i = 0; i < runs; i++) {
    for (const bundle of bundles) samples.get(bundle.name)!.push(await loadOnce(bundle.file));
  }
  const empty = median(samples.get(EMPTY)!.map((s) => s.loadMs));
  return bundles.map(({ file: _file, ...bundle }) => {
    const own = samples.get(bundle.name)!;
    const loadMs = median(own.map((s) => s.loadMs));
    return {
      ...bundle,
      loadMs: round(loadMs),
      importMs: round(median(own.map((s) => s.importMs))),
      loadRatio: round(loadMs / empty),
      runs,
    };
  });
}
