/**
 * Every function of the route table bundled as the stack deploys it (lib/bundling.ts), once for
 * the whole test run: test/global-setup.ts builds them on the first file's request and removes
 * them at the end; test/infra/bundles.test.ts runs them and test/infra/synth.test.ts holds
 * `cdk synth`'s bundles to them, byte for byte.
 *
 * One esbuild build with every handler as an entry point: esbuild reads and parses the modules
 * they share (the SDK, functions/core) once, not once per handler; about a third of the time of
 * one build per handler (50 s against 147 s on the loaded 2-core test machine). Without code
 * splitting each entry's output is the bundle its own build writes, byte for byte (synth.test.ts
 * checks one against `bundleHandler`).
 */
import { copyFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { allFunctions } from '#functions/routes';
import { esbuildOptions, handlerEntry, projectRoot } from '#lib/bundling';

/** Function name → its `index.mjs`. */
export type Bundles = Record<string, string>;

/** Bundles every function into `outdir/<name>/index.mjs`, with the files it reads at run time beside it. */
export async function bundleAllFunctions(outdir: string): Promise<Bundles> {
  const functions = allFunctions();
  const { outfile: _outfile, entryPoints: _entryPoints, ...options } = esbuildOptions(handlerEntry(functions[0]!.handler), outdir);
  await build({
    ...options,
    entryPoints: Object.fromEntries(functions.map((fn) => [`${fn.name}/index`, handlerEntry(fn.handler)])),
    outdir,
    outExtension: { '.js': '.mjs' },
  });
  // As the stack's afterBundling hook does (lib/stack/route-function.ts): the files a route reads go beside its bundle.
  for (const fn of functions) {
    for (const file of 'files' in fn ? (fn.files ?? []) : []) copyFileSync(join(projectRoot, file), join(outdir, fn.name, basename(file)));
  }
  return Object.fromEntries(functions.map((fn) => [fn.name, join(outdir, fn.name, 'index.mjs')]));
}

/** The run's bundles (read only: other files run them too), built by test/global-setup.ts on the first request. */
export async function sharedBundles(): Promise<Bundles> {
  // Imported here: test/global-setup.ts, in vitest's main process, imports this module for the build above.
  const { inject } = await import('vitest');
  const res = await fetch(`${inject('dynamodbBroker')}/bundles`, { method: 'POST' });
  const body = (await res.json()) as { bundles?: Bundles; message?: string };
  if (!res.ok || !body.bundles) throw new Error(`the run's bundles: ${body.message ?? res.status}`);
  return body.bundles;
}
