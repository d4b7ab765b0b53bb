/**
 * Every function of the route table bundled as the stack deploys it (lib/bundling.ts: one esbuild
 * build of them all, as the stack's synth makes it), once for the whole test run:
 * test/global-setup.ts builds them on the first file's request and removes them at the end;
 * test/infra/bundles.test.ts runs them and test/infra/synth.test.ts holds `cdk synth`'s bundles
 * to them, byte for byte.
 */
import { join } from 'node:path';
import { allFunctions } from '#functions/routes';
import { bundleFunctions } from '#lib/bundling';

/** Function name → its `index.mjs`. */
export type Bundles = Record<string, string>;

/** Bundles every function into `outdir/<name>/index.mjs`, with the files it reads at run time beside it. */
export async function bundleAllFunctions(outdir: string): Promise<Bundles> {
  const functions = allFunctions();
  await bundleFunctions(functions, outdir);
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
