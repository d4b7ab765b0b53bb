/**
 * A function's code in the stack: its directory from one esbuild build of every function the app
 * may deploy (lib/bundling.ts, `bundleFunctionsSync`), made when a synth bundles its first
 * function, once per variant (tracing, sam local). NodejsFunction ran `npx esbuild` once per
 * function: ~0.8 s of npx starting each time, ~40 s for the app's 60 functions; one build of them
 * all takes ~5 s on the same machine.
 *
 * The asset is staged as NodejsFunction staged its own: the project root, bundled locally, hashed
 * by its output, so a stack synthesized without bundling (`aws:cdk:bundling-stacks`, as the
 * template tests synthesize) skips it the same way and builds nothing.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssetHashType, type BundlingOptions, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { allFunctions, signInRoutes } from '#functions/routes';
import { bundleFunctionsSync, projectRoot, type TracingOption } from '#lib/bundling';

/** Every variant's build, made at most once a process: where each function's directory is. */
const builds = new Map<string, string>();

function buildFor(variant: TracingOption): string {
  const key = JSON.stringify(variant);
  let outdir = builds.get(key);
  if (!outdir) {
    const made = mkdtempSync(join(tmpdir(), 'documents-functions-'));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    bundleFunctionsSync([...allFunctions(), ...signInRoutes], made, variant);
    builds.set(key, made);
    outdir = made;
  }
  return outdir;
}

/**
 * How one function's asset is bundled: copied from the build of them all. Its fields are what the
 * asset's cache key and skipped-bundling hash are made of (CDK JSON-serializes the options), so
 * each function's are its own.
 */
class FromOneBuild implements BundlingOptions {
  /** Never run: the local bundling below always succeeds or throws. */
  readonly image = DockerImage.fromRegistry('documents/bundled-locally-by-esbuild');
  readonly local: ILocalBundling;

  constructor(
    readonly functionName: string,
    readonly variant: TracingOption,
  ) {
    this.local = {
      tryBundle: (outputDir: string) => {
        cpSync(join(buildFor(variant), functionName), outputDir, { recursive: true });
        return true;
      },
    };
  }
}

/** The code of the function named `name` (its `index.mjs`, handler `index.handler`, and the files it reads). */
export function functionCode(name: string, variant: TracingOption): Code {
  return Code.fromAsset(projectRoot, { assetHashType: AssetHashType.OUTPUT, bundling: new FromOneBuild(name, variant) });
}
