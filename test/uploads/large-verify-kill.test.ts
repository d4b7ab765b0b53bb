/**
 * A verification killed in the middle (SIGKILL of the local service: node, DynamoDB Local and the
 * S3 emulator, restarted on the same DATA_DIR) resumes from the SHA-256 state its last step saved,
 * not from the first byte, and makes the version exactly once (functions/core/use-cases/finish-upload.ts,
 * `verifyUpload`). The limits are lowered (tests only) so that a 3 MiB file takes dozens of steps.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocalIssuer } from '#lib/local/jwt';
import { callService, killHard, type Running, removeService, startService, waitUntilGone } from '#test/support/child-service';

const SETTINGS = {
  UPLOAD_VERIFY_INLINE_BYTES: String(1024 * 1024),
  VERIFY_STEP_BYTES: String(256 * 1024),
  TASK_BUDGET_MS: '1',
  SWEEP_INTERVAL_MS: '500',
  SWEEP_GRACE_SECONDS: '0',
  LOG_LEVEL: 'INFO',
};

/** The offsets each `verify-upload: hashed` line of the service's log started from, in order. */
const hashedFrom = (output: string, uploadId: string): number[] =>
  output
    .split('\n')
    .filter((line) => line.includes('verify-upload: hashed') && line.includes(uploadId))
    .map((line) => (JSON.parse(line) as { from: number }).from);

describe('a verification killed in the middle', () => {
  let dataDir: string;
  let running: Running;
  let token: string;
  let folderId: string;

  const call = (method: string, path: string, body?: unknown) => callService(running, token, method, path, body);

  beforeAll(async () => {
    Object.assign(process.env, SETTINGS);
    dataDir = await mkdtemp(join(tmpdir(), 'documents-verify-kill-'));
    running = await startService(dataDir);
    token = await (await loadLocalIssuer(dataDir)).issueToken('verify-kill');
    folderId = (await call('POST', '/', { name: `verify ${Date.now()}` })).body.rootFolderId;
  }, 60_000);

  afterAll(async () => {
    for (const name of Object.keys(SETTINGS)) delete process.env[name];
    await removeService(running, dataDir);
  });

  it('resumes from the saved state after the restart and completes exactly once', async () => {
    const file = randomBytes(3 * 1024 * 1024 + 7);
    const sha256 = createHash('sha256').update(file).digest('hex');
    const started = await call('POST', '/uploads', { folderId, name: 'killed.bin', size: file.length, sha256 });
    expect(started.status).toBe(201);
    expect((await fetch(started.body.parts[0].url, { method: 'PUT', body: file })).status).toBe(200);
    expect((await call('POST', `/uploads/${started.body.id}/complete`)).status).toBe(202);

    // Killed once a few steps have saved their state.
    for (let tries = 0; hashedFrom(running.output(), started.body.id).length < 4; tries++) {
      if (tries > 300) throw new Error(`no progress:\n${running.output().slice(-2_000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    killHard(running);
    const before = hashedFrom(running.output(), started.body.id);
    await waitUntilGone(running, dataDir);
    running = await startService(dataDir);

    let done: { status: number; body: { version?: number; sha256?: string } } | undefined;
    for (let tries = 0; tries < 240; tries++) {
      done = await call('POST', `/uploads/${started.body.id}/complete`);
      if (done.status !== 202) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(done?.status, JSON.stringify(done?.body)).toBe(200);
    expect(done?.body).toMatchObject({ id: started.body.documentId, version: 1, sha256 });
    const revisions = await call('GET', `/document/${started.body.documentId}/revisions`);
    expect(revisions.body.items.map((r: { version: number }) => r.version)).toEqual([1]);

    // The restarted service went on from where the killed one had saved its state, not from 0.
    const after = hashedFrom(running.output(), started.body.id);
    expect(before[0]).toBe(0);
    expect(after.length).toBeGreaterThan(0);
    // A step logs where it started, which an earlier step had saved: the restart starts there or later.
    expect(after[0]).toBeGreaterThanOrEqual(before.at(-1)!);
    expect(after[0]).toBeGreaterThan(0);
    expect(after[0]).toBeLessThan(file.length);
  }, 180_000);
});
