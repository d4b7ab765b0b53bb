/**
 * How every Lambda function is bundled: one set of esbuild settings, used by the CDK stack (one
 * build of every function, lib/stack/function-code.ts) and by the tests and benchmarks that bundle
 * a handler exactly as the stack deploys it. Change it here and both follow.
 */

import { copyFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, buildSync } from 'esbuild';

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The handler module for a route table entry (`handler` is relative to functions/, no extension). */
export const handlerEntry = (handler: string) => join(projectRoot, 'functions', `${handler}.ts`);

export const functionBundling = {
  format: 'esm',
  /**
   * Lambda runs Node 22, but the bundle is tested here on Node 20: target the older one so
   * the file proven locally is the file deployed.
   */
  target: 'node20',
  minify: true,
  sourceMap: false,
  /** ESM builds of the AWS SDK and its dependencies first. */
  mainFields: ['module', 'main'],
  /**
   * Bundle the pinned SDK instead of using the runtime's copy (Lambda's Node 22 has its own
   * `@aws-sdk/*`): the code deployed is the code tested.
   */
  externalModules: [] as string[],
  /**
   * CommonJS packages inside an ESM bundle call `require` for Node built-ins; ESM has none,
   * so give them one. Without it the bundle loads but its first SDK call fails with
   * `Dynamic require of "node:https" is not supported`.
   */
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  /**
   * Modules of the SDK swapped for smaller ones (esbuild's `alias`, paths relative to the project
   * root, where esbuild runs). Code run unbundled (npm start, the tests) keeps the real ones.
   *
   * - Lambda hands a function its credentials in environment variables, so the SDK's default
   *   credential chain (SSO, ini files, STS web identity, process, ECS, EC2 metadata, with the
   *   SSO and STS clients they need) is ~140 KB of a handler's ~410 KB that never runs: a
   *   20-line reader of those variables instead (functions/core/db/sdk-stand-ins/env-credentials.ts).
   * - Event streams, which DynamoDB does not have, reached by a dynamic `import()` that made
   *   esbuild wrap most of the SDK in lazy initializers (functions/core/db/sdk-stand-ins/no-event-streams.ts):
   *   ~20 KB and about a tenth of a handler's module load.
   */
  alias: {
    '@aws-sdk/credential-provider-node': './functions/core/db/sdk-stand-ins/env-credentials.ts',
    '@smithy/core/event-streams': './functions/core/db/sdk-stand-ins/no-event-streams.ts',
  } as Readonly<Record<string, string>>,
} as const;

/** What a function is bundled for: X-Ray tracing (the stack's `tracing` setting), and `sam local` (`-c samLocal=true`). */
export interface TracingOption {
  readonly tracing?: boolean;
  readonly samLocal?: boolean;
}

/**
 * Without tracing, Powertools Tracer (and the X-Ray SDK under it, ~125 KB) is replaced by a stub
 * that is never loaded (functions/core/tracing.ts imports it only when tracing is on), so a
 * function without tracing is the bundle it was before tracing existed.
 */
const tracerStub = { '@aws-lambda-powertools/tracer': './functions/core/no-tracer.ts' };

/**
 * Outside the `sam local` template, `jose` (~20 KB, every function) is replaced by a stub: only the
 * token check a function makes under `sam local` uses it (functions/core/sam-local-auth.ts,
 * loaded only there), and Lambda never runs that.
 */
const joseStub = { jose: './functions/core/no-jose.ts' };

/** `functionBundling.alias` for a function with or without tracing, for AWS or for `sam local`. */
function aliasFor({ tracing = false, samLocal = false }: TracingOption): Record<string, string> {
  return { ...functionBundling.alias, ...(tracing ? {} : tracerStub), ...(samLocal ? {} : joseStub) };
}

/** esbuild's options for one handler, from `functionBundling`. */
export function esbuildOptions(entry: string, outfile: string, tracing: TracingOption = {}): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: functionBundling.format,
    target: functionBundling.target,
    minify: functionBundling.minify,
    sourcemap: functionBundling.sourceMap,
    mainFields: [...functionBundling.mainFields],
    external: [...functionBundling.externalModules],
    banner: { js: functionBundling.banner },
    alias: aliasFor(tracing),
    // esbuild runs from the project root; relative paths in flags resolve there.
    absWorkingDir: projectRoot,
    tsconfig: join(projectRoot, 'tsconfig.json'),
    logLevel: 'silent',
  };
}

/** Bundles one handler as the stack does (by default without tracing, for AWS); returns the output file (`index.mjs`, as on Lambda). */
export async function bundleHandler(handler: string, outdir: string, tracing: TracingOption = {}): Promise<string> {
  const outfile = join(outdir, 'index.mjs');
  await build(esbuildOptions(handlerEntry(handler), outfile, tracing));
  return outfile;
}

/** A function as the bundler sees it: its name (its directory), its handler, the files it reads at run time. */
export interface BundledFunction {
  readonly name: string;
  readonly handler: string;
  readonly files?: readonly string[];
}

/**
 * esbuild's options for bundling `functions` in one build, each into `outdir/<name>/index.mjs`.
 * One build reads and parses the modules they share (the SDK, functions/core) once, not once a
 * handler. Without code splitting each entry's output is the bundle its own build writes, byte for
 * byte (test/infra/synth.test.ts checks one against `bundleHandler`).
 */
function oneBuildOptions(functions: readonly BundledFunction[], outdir: string, tracing: TracingOption): BuildOptions {
  const { outfile: _outfile, entryPoints: _entryPoints, ...options } = esbuildOptions(handlerEntry(functions[0]!.handler), outdir, tracing);
  return {
    ...options,
    entryPoints: Object.fromEntries(functions.map((fn) => [`${fn.name}/index`, handlerEntry(fn.handler)])),
    outdir,
    outExtension: { '.js': '.mjs' },
  };
}

/** The files each function reads at run time (e.g. the docs page's assets), copied beside its bundle. */
function copyRunTimeFiles(functions: readonly BundledFunction[], outdir: string): void {
  for (const fn of functions)
    for (const file of fn.files ?? []) copyFileSync(join(projectRoot, file), join(outdir, fn.name, basename(file)));
}

/** Bundles `functions` into `outdir/<name>/index.mjs` in one build (see `oneBuildOptions`), for code that cannot wait: a CDK synth. */
export function bundleFunctionsSync(functions: readonly BundledFunction[], outdir: string, tracing: TracingOption = {}): void {
  buildSync(oneBuildOptions(functions, outdir, tracing));
  copyRunTimeFiles(functions, outdir);
}

/** Bundles `functions` into `outdir/<name>/index.mjs` in one build (see `oneBuildOptions`). */
export async function bundleFunctions(functions: readonly BundledFunction[], outdir: string, tracing: TracingOption = {}): Promise<void> {
  await build(oneBuildOptions(functions, outdir, tracing));
  copyRunTimeFiles(functions, outdir);
}
