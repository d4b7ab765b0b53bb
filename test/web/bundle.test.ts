/**
 * The web app's budget: the JavaScript a first visit loads (the entry chunk and every chunk it
 * imports statically, from Vite's manifest) is at most 60 KB gzip. The app is built here, into a
 * folder of this test's own (~5 s), so the figure is for the sources as they are.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import { buildWebApp } from '#lib/local/web-app';
import { useTempDir } from '#test/support/temp-dir';

const BUDGET_BYTES = 60 * 1024;
const outDir = join(useTempDir('web-build-'), 'dist');

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
}

beforeAll(() => buildWebApp(outDir), 60_000);

it('loads at most 60 KB of gzipped JavaScript on the first visit', async () => {
  const manifest = JSON.parse(await readFile(join(outDir, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const entries = Object.entries(manifest).filter(([, chunk]) => chunk.isEntry);
  expect(entries.map(([key]) => key)).toEqual(['index.html']);
  const initial = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key]!;
    if (initial.has(chunk.file)) return;
    initial.add(chunk.file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit('index.html');
  let gzipped = 0;
  for (const file of initial) gzipped += gzipSync(await readFile(join(outDir, file)), { level: 9 }).length;
  console.log(`web app initial JavaScript: ${(gzipped / 1024).toFixed(1)} KB gzip in ${initial.size} file(s)`);
  expect(gzipped).toBeGreaterThan(1024);
  expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
});
