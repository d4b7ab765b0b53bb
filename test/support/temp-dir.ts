/**
 * A directory of the test file's own under the system's temporary directory, made at once and
 * removed after the file's (or the `describe` block's) tests. Apart from fixture.ts, which
 * starts the service: the fast tier uses this too, and must not load the local runtime.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export function useTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
