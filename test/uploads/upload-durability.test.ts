/**
 * Uploads across SIGKILL of the local service (node, DynamoDB Local and the S3 emulator in it),
 * restarted on the same DATA_DIR (docs/api.md: Files): parts sent before the kill are kept and
 * complete after it; a kill while `complete` runs leaves an upload that completes exactly once
 * after the restart; a one-part upload whose ObjectCreated event died with the process is
 * finished by the sweeper.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocalIssuer } from '#lib/local/jwt';
import { callService, killHard, type Running, removeService, startService, waitUntilGone } from '#test/support/child-service';

const PART = 8 * 1024 * 1024;

describe('uploads across SIGKILL of the local service', () => {
  let dataDir: string;
  let running: Running;
  let token: string;
  let folderId: string;

  const call = (method: string, path: string, body?: unknown) => callService(running, token, method, path, body);
  const restart = async () => {
    killHard(running);
    await waitUntilGone(running, dataDir);
    running = await startService(dataDir);
  };
  const twoPartUpload = async (name: string) => {
    const started = await call('POST', '/uploads', { folderId, name, size: PART + 10 });
    expect(started.status).toBe(201);
    const parts = [randomBytes(PART), randomBytes(10)];
    const sent = await Promise.all(
      started.body.parts.map((p: { url: string }, i: number) => fetch(p.url, { method: 'PUT', body: parts[i] })),
    );
    expect(sent.map((r) => r.status)).toEqual([200, 200]);
    return started.body as { id: string; documentId: string };
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'documents-upload-durability-'));
    // The sweeper looks often and takes work 2 s old: what a lost event leaves, it finds within
    // seconds of the restart. Not at once (grace 0): a sweep between a one-part upload's start and
    // its bytes finds no part yet and looks again only at the upload's expiry, as deployed, where
    // the grace is 5 minutes (that happened on a loaded run: the sweeper never came back to it).
    process.env.SWEEP_INTERVAL_MS = '500';
    process.env.SWEEP_GRACE_SECONDS = '2';
    running = await startService(dataDir);
    token = await (await loadLocalIssuer(dataDir)).issueToken('upload-durability');
    const repository = await call('POST', '/', { name: `uploads ${Date.now()}` });
    folderId = repository.body.rootFolderId;
  }, 60_000);

  afterAll(async () => {
    delete process.env.SWEEP_INTERVAL_MS;
    delete process.env.SWEEP_GRACE_SECONDS;
    await removeService(running, dataDir);
  });

  it('keeps the parts sent before the kill: complete after the restart makes the version', async () => {
    const upload = await twoPartUpload('before-complete.bin');
    await restart();
    const done = await call('POST', `/uploads/${upload.id}/complete`);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ id: upload.documentId, storage: 'file', size: PART + 10, version: 1 });
  }, 120_000);

  it('completes exactly once when the kill comes while complete runs', async () => {
    for (const delayMs of [5, 40]) {
      const upload = await twoPartUpload(`during-complete-${delayMs}.bin`);
      const inFlight = call('POST', `/uploads/${upload.id}/complete`).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await restart();
      await inFlight;
      const answers = await Promise.all([1, 2].map(() => call('POST', `/uploads/${upload.id}/complete`)));
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answers[0]!.body).toEqual(answers[1]!.body);
      const revisions = await call('GET', `/document/${upload.documentId}/revisions`);
      expect(revisions.body.items.map((r: { version: number }) => r.version)).toEqual([1]);
    }
  }, 180_000);

  it('finishes a one-part upload whose event died with the process (the sweeper)', async () => {
    const started = await call('POST', '/uploads', { folderId, name: 'one-part.bin', size: 100 });
    expect((await fetch(started.body.parts[0].url, { method: 'PUT', body: randomBytes(100) })).status).toBe(200);
    killHard(running); // the moment the bytes are acknowledged: the event may be lost
    await waitUntilGone(running, dataDir);
    running = await startService(dataDir);
    let document: { status: number; body: { version?: number } } | undefined;
    // Within seconds on a quiet machine; the bound is for a sweeper that never finishes it, not a speed.
    for (let tries = 0; tries < 240; tries++) {
      document = await call('GET', `/document/${started.body.documentId}`);
      if (document.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(document?.status).toBe(200);
    expect(document?.body.version).toBe(1);
  }, 180_000);
});
