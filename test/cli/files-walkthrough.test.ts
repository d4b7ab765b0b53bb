/**
 * The Files walkthrough (docs/walkthrough.md), run as written (only the port differs) against a running
 * service with its own token command: a PDF sent as the raw body and fetched back
 * through the redirect with curl, then a large file through `npm run upload` and `npm run download`.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useService } from '#test/support/fixture';

const root = new URL('../..', import.meta.url).pathname;
const ctx = useService();

describe('Walkthrough: files', () => {
  it('runs as written: the PDF and the large file come back with the same bytes', async () => {
    const readme = await readFile(join(root, 'docs', 'walkthrough.md'), 'utf8');
    const script = /```sh\n([\s\S]*?)```/.exec(readme.split('\n## Files\n')[1] ?? '')?.[1];
    if (!script) throw new Error('docs/walkthrough.md has no script under "## Files"');
    expect(script).toContain('API=http://127.0.0.1:3000');
    const { stdout } = await promisify(execFile)(
      'bash',
      ['-euo', 'pipefail', '-c', script.replace('API=http://127.0.0.1:3000', `API=${ctx.svc.url}`)],
      {
        cwd: root,
        env: { ...process.env, DATA_DIR: ctx.svc.dataDir },
        timeout: 60_000,
      },
    );
    const pdf = Buffer.from('%PDF-1.4\n% a very small PDF\n%%EOF\n');
    const written = JSON.parse(stdout.split('\n').find((line) => line.startsWith('{'))!);
    expect(written).toMatchObject({
      name: 'Invoice.pdf',
      version: 2,
      storage: 'file',
      contentType: 'application/pdf',
      size: pdf.length,
      sha256: createHash('sha256').update(pdf).digest('hex'),
    });
    expect(written).not.toHaveProperty('content');
    expect(stdout).toContain('invoice.pdf: same bytes\n');
    expect(stdout).toContain('recording.bin: same bytes\n');
  });
});
