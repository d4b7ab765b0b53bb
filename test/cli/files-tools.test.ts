/**
 * `npm run upload` and `npm run download` (bin/upload.ts, bin/download.ts) as people run them,
 * in processes of their own, against the local service: a file of several parts, the tool killed
 * after the first part and run again (it resumes: only the missing parts are sent), then the
 * bytes downloaded through the redirect and compared; a download whose bytes do not match the
 * Document's sha256 writes nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { stateFileOf } from '#lib/files-client/upload';
import { useServiceWithOwner } from '#test/support/fixture';
import { useTempDir } from '#test/support/temp-dir';

const MiB = 1024 * 1024;
const root = new URL('../..', import.meta.url).pathname;

const ctx = useServiceWithOwner();
const dir = useTempDir('documents-files-cli-');

interface Run {
  child: ChildProcess;
  stderr: () => string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** One of the tools, as `npm run <tool> --` runs it (node with tsx), with the README's API and TOKEN. */
function run(tool: 'upload' | 'download', args: string[]): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', `bin/${tool}.ts`, ...args], {
    cwd: root,
    env: { ...process.env, API: ctx.svc.url, TOKEN: ctx.user.api.token! },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, stderr: () => stderr, done };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const getUpload = async (id: string) => (await ctx.user.api.get(`/uploads/${id}`)).body;

describe('npm run upload / npm run download', () => {
  it('sends a file of several parts, resumes after being killed mid-way, and the download has the same bytes', async () => {
    const bytes = randomBytes(20 * MiB);
    const file = join(dir, 'recording.bin');
    await writeFile(file, bytes);

    // One part at a time, killed as soon as the bucket holds the first. Once the upload exists the
    // tool is stopped (SIGSTOP) while the test looks: otherwise, on a loaded machine, it sent the
    // other parts and completed during the look.
    const first = run('upload', [ctx.repo.rootFolderId, file, '--parallel', '1']);
    let uploadId: string | undefined;
    for (let waited = 0; ; waited += 20) {
      if (waited > 30_000) throw new Error(`no part arrived in 30 s; the tool said: ${first.stderr()}`);
      uploadId ??= await readFile(stateFileOf(file), 'utf8').then(
        (text) => JSON.parse(text).uploadId as string | undefined,
        () => undefined, // not written yet
      );
      if (uploadId) {
        first.child.kill('SIGSTOP');
        if ((await getUpload(uploadId)).received?.length) break;
        first.child.kill('SIGCONT');
      }
      await sleep(20);
    }
    first.child.kill('SIGKILL');
    expect((await first.done).code).toBe(null);

    const partial = await getUpload(uploadId);
    expect(partial).toMatchObject({ status: 'open', size: bytes.length, sha256: sha256(bytes) });
    expect(partial.partSize).toBeGreaterThanOrEqual(5 * MiB);
    expect(partial.partCount).toBe(Math.ceil(bytes.length / partial.partSize));
    expect(partial.partCount).toBeGreaterThanOrEqual(3);
    const already = partial.received.length;
    expect(already, 'the kill came after the last part: nothing left to resume').toBeLessThan(partial.partCount);

    // The same command again: it finds the upload, sends only what is missing, completes.
    const second = await run('upload', [ctx.repo.rootFolderId, file, '--parallel', '4']).done;
    expect(second.stderr).toContain(`resuming upload ${uploadId}: ${already} of ${partial.partCount} parts already received`);
    expect(second.code, second.stderr).toBe(0);
    const document = JSON.parse(second.stdout);
    expect(document).toMatchObject({
      id: partial.documentId,
      folderId: ctx.repo.rootFolderId,
      name: 'recording.bin',
      storage: 'file',
      size: bytes.length,
      sha256: sha256(bytes),
      version: 1,
    });
    expect(document).not.toHaveProperty('content');
    await expect(readFile(stateFileOf(file))).rejects.toThrow(/ENOENT/);
    expect((await getUpload(uploadId)).status).toBe('completed');

    const copy = join(dir, 'copy.bin');
    const download = await run('download', [document.id, copy]).done;
    expect(download.code, download.stderr).toBe(0);
    expect(download.stderr).toContain(`wrote ${copy} (${bytes.length} bytes, sha256 ${sha256(bytes)})`);
    expect((await readFile(copy)).equals(bytes)).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['copy.bin', 'recording.bin']);
  });

  it('refuses a download whose bytes do not match the document, and writes nothing', async () => {
    const bytes = randomBytes(MiB);
    const file = join(dir, 'small.bin');
    await writeFile(file, bytes);
    const upload = await run('upload', [ctx.repo.rootFolderId, file, '--name', 'tampered.bin']).done;
    expect(upload.code, upload.stderr).toBe(0);
    const document = JSON.parse(upload.stdout);

    // The object the redirect points at, overwritten in the bucket with other bytes of the same size.
    const content = await fetch(`${ctx.svc.url}/document/${document.id}/content`, {
      headers: { Authorization: `Bearer ${ctx.user.api.token}` },
      redirect: 'manual',
    });
    expect(content.status).toBe(302);
    const [, bucket, ...key] = new URL(content.headers.get('Location')!).pathname.split('/');
    await ctx.bucket.send(new PutObjectCommand({ Bucket: bucket, Key: decodeURIComponent(key.join('/')), Body: randomBytes(MiB) }));

    const target = join(dir, 'tampered.bin');
    const download = await run('download', [document.id, target]).done;
    expect(download.code).toBe(1);
    expect(download.stderr).toMatch(/the bytes of tampered\.bin do not match the document .*: nothing written/);
    await expect(readFile(target)).rejects.toThrow(/ENOENT/);
    expect((await readdir(dir)).filter((name) => name.includes('tampered'))).toEqual([]);
  });

  it('says what is wrong with its arguments and environment (exit code 2)', async () => {
    const noFile = await run('upload', [ctx.repo.rootFolderId]).done;
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('Usage: npm run upload -- <folderId> <file>');
    const parallel = await run('upload', [ctx.repo.rootFolderId, 'f', '--parallel', '40']).done;
    expect(parallel.stderr).toContain('--parallel must be a whole number from 1 to 16');
    const nothing = await run('download', []).done;
    expect([nothing.code, nothing.stderr.trim()]).toEqual([2, 'npm run download: Usage: npm run download -- <documentId> [file]']);
  });
});
