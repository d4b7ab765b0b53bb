/**
 * Cold start: every function as the stack bundles it (lib/bundling.ts), an empty handler and
 * each part of a handler bundled the same way (bench/reference/): size, minified and gzip, and
 * module load in fresh Node processes — from process start until `import()` of the bundle
 * resolved, what a Lambda cold start waits for before the first call (runtime start plus the
 * module's top level). The import alone is reported too.
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
import { f, kb, table } from '../markdown';
import type { Scenario } from '../run';

export interface Bundle {
  name: string;
  handler: string;
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface ColdStartRow extends Omit<Bundle, 'file'> {
  /** Medians: ms from process start to the module loaded, and of the import() alone. */
  loadMs: number;
  importMs: number;
  /** loadMs / the empty handler's. */
  loadRatio: number;
  runs: number;
}

export const EMPTY = 'empty handler';
/** Bundled like a handler: the empty one the budget compares with, and each part of a handler alone. */
const REFERENCES: Record<string, string> = {
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

export const coldStart: Scenario = {
  name: 'coldStart',
  title: 'cold start: bundle size and module load',
  async run({ scratch, log }) {
    const bundles = await bundleAll(join(scratch, 'bundles'));
    const rows = await measureColdStart(bundles);
    for (const r of rows)
      log(`  ${r.name.padEnd(30)} ${(r.bytes / 1024).toFixed(0).padStart(4)} KB, load ${r.loadMs} ms (${r.loadRatio}×)`);
    return { coldStart: rows, bundles };
  },
};

/** Every route's function, the fallback, and the references, bundled into `dir`. */
async function bundleAll(dir: string): Promise<Bundle[]> {
  const bundles: Bundle[] = [];
  for (const { name, handler } of [...routes, fallbackRoute])
    bundles.push(await sized(name, handler, await bundleHandler(handler, join(dir, name))));
  for (const [name, file] of Object.entries(REFERENCES)) {
    const out = join(dir, `reference-${file}`, 'index.mjs');
    await build(esbuildOptions(join(projectRoot, 'bench', 'reference', `${file}.ts`), out));
    bundles.push(await sized(name, `bench/reference/${file}`, out));
  }
  return bundles;
}

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
  const { stdout } = await promisify(execFile)(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...ENV } });
  return JSON.parse(stdout);
}

/** `runs` fresh processes per bundle, taking turns so that drift on the machine hits all alike. */
async function measureColdStart(bundles: Bundle[], runs = 25): Promise<ColdStartRow[]> {
  const samples = new Map(bundles.map((b) => [b.name, [] as { loadMs: number; importMs: number }[]]));
  for (const bundle of bundles) await loadOnce(bundle.file); // the file cache is warm for everyone
  for (let i = 0; i < runs; i++) for (const bundle of bundles) samples.get(bundle.name)!.push(await loadOnce(bundle.file));
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

export function coldStartSection(rows: ColdStartRow[]): string {
  const named = (name: string) => rows.find((row) => row.name === name)!;
  const overEmpty = (row: ColdStartRow) => f(row.importMs - named(EMPTY).importMs, 1);
  const parts = rows.filter((row) => row.name.startsWith('part: '));
  return `## 4. Cold start

Every function bundled as the stack bundles it (\`lib/bundling.ts\`), and an empty handler bundled the same
way. **Load** is the median, over ${rows[0]!.runs} fresh Node processes per bundle (taking turns), of the time from the
process's start until \`import()\` of the bundle resolved — what a cold start waits for before the first
call; **import** is the \`import()\` alone. Sizes are minified, and gzip.

${table(
  ['Function', 'Handler', 'Minified', 'gzip', 'Load ms', 'Import ms', '× empty'],
  rows.map((row) => [
    row.name,
    row.handler,
    kb(row.bytes),
    kb(row.gzipBytes),
    f(row.loadMs, 1),
    f(row.importMs, 1),
    `**${f(row.loadRatio)}**`,
  ]),
)}

What a handler's load is made of — each part bundled alone, its import time above the empty handler's:
${parts.map((p) => `${p.name.replace('part: ', '')} ${overEmpty(p)} ms`).join(', ')}; a whole handler ${overEmpty(named('GetDocument'))} ms
(GetDocument). The parts overlap (several load \`node:crypto\`), so they add up to more than a handler. The AWS
SDK v3, the data layer's part, is the largest share of a handler's bundle and of its load; it is a fixed part of
the design, bundled at a pinned version with the default credential chain swapped for a reader of Lambda's
environment variables (\`lib/bundling.ts\`: ~140 KB less). A hand-written DynamoDB client measured ~1.8× the
empty handler and was not kept (docs/data-model.md, DynamoDB client).
`;
}
