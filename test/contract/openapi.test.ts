/**
 * openapi.json is generated, committed, current, and clean: regenerating it (and the typed
 * client's types) in memory gives the committed files byte for byte, and Redocly's linter
 * (recommended rules, every warning an error: redocly.yaml) finds nothing.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { routes } from '#functions/routes';
import { clientTypesPath, openApiPath, renderClientTypes, renderOpenApi } from '#lib/openapi/generate';

const root = fileURLToPath(new URL('../../', import.meta.url));
const stale = 'is stale: run `npm run openapi` and commit the result';

describe('openapi.json', () => {
  it('is what the schemas and the route table generate', async () => {
    expect(await readFile(openApiPath, 'utf8'), `openapi.json ${stale}`).toBe(await renderOpenApi());
  });

  it('is what the typed client is typed from', async () => {
    const committed = await readFile(openApiPath, 'utf8');
    expect(await readFile(clientTypesPath, 'utf8'), `lib/client/schema.ts ${stale}`).toBe(await renderClientTypes(committed));
  });

  it('documents every route of the route table, and nothing else', async () => {
    const document = JSON.parse(await readFile(openApiPath, 'utf8')) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
    // Public routes say so (no security); the others take the document-wide bearer scheme.
    for (const route of routes) {
      expect(document.paths[route.path]![route.method.toLowerCase()]!.security, route.name).toEqual(route.public ? [] : undefined);
    }
  });

  it('passes `redocly lint` with no problem at all', async () => {
    const run = promisify(execFile)(join('node_modules', '.bin', 'redocly'), ['lint', 'openapi.json', '--format=json'], {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    });
    const { stdout } = await run.catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`redocly lint failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    });
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number; ignored: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  }, 60_000);
});
