/**
 * A global setup of every test project: the run's temporary files go in one folder, removed when
 * the run ends. Set here, TMPDIR is what every test process inherits (`os.tmpdir()` reads it), so
 * every mkdtemp of a test, of the processes it starts, and of the CDK apps the tests synthesize
 * lands there: an app without `outdir` makes a `cdk.out*` folder in the temporary folder and
 * never removes it (~240 of them, 1.4 GB, a run of the suite). Vitest sets every project up
 * before the first file runs, and tears them down after the last.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One folder for the whole run, however many projects set up (globalThis: shared by the projects' setups). */
const shared = globalThis as typeof globalThis & { documentsRunTemp?: { dir: string; before: string | undefined; users: number } };

export default function setup(): () => void {
  if (!shared.documentsRunTemp) {
    const before = process.env.TMPDIR;
    shared.documentsRunTemp = { dir: mkdtempSync(join(tmpdir(), 'documents-test-run-')), before, users: 0 };
    process.env.TMPDIR = shared.documentsRunTemp.dir;
    // Where each test file records the operations it got answers from (./route-coverage.ts),
    // which test/completeness/ reads after every other file.
    process.env.ROUTE_COVERAGE_FILE ??= join(shared.documentsRunTemp.dir, 'route-coverage.jsonl');
  }
  const run = shared.documentsRunTemp;
  run.users++;
  return () => {
    if (--run.users > 0) return;
    shared.documentsRunTemp = undefined;
    if (run.before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = run.before;
    rmSync(run.dir, { recursive: true, force: true });
  };
}
