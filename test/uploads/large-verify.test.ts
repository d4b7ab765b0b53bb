/**
 * A file too large to hash in one invocation (functions/core/use-cases/finish-upload.ts,
 * `verifyUpload`): its `verify-upload` task hashes it a range at a time, saving the SHA-256's
 * state with the task's progress, each range in its own worker invocation; the last one makes
 * the version, exactly once, or fails the upload. With the limits lowered (tests only): files
 * over 1 MiB are "large", a step reads at most 1 MiB (VERIFY_STEP_BYTES), and a worker
 * invocation works on a task for 100 ms (TASK_BUDGET_MS), so an 11 MiB file takes several.
 */
import { createHash } from 'node:crypto';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { db, tableName } from '#core/db/client';
import { taskKey } from '#core/items/keys';
import type { Upload } from '#core/resources';
import { verifyTaskId } from '#core/use-cases/finish-upload';
import { sweepNow } from '#lib/local/worker';
import { useService } from '#test/support/fixture';
import { type Api, type Document, ensure, newFolder, newRepository, newUser } from '#test/support/http';

const MiB = 1024 * 1024;
const PART = 8 * MiB;

const ctx = useService({
  seed: async (svc) => {
    const owner = await newUser(svc);
    return { owner, repo: await newRepository(owner.api) };
  },
});
const LOWERED = { UPLOAD_VERIFY_INLINE_BYTES: String(MiB), VERIFY_STEP_BYTES: String(MiB), TASK_BUDGET_MS: '100' };
beforeEach(() => Object.assign(process.env, LOWERED));
afterEach(() => {
  for (const name of [...Object.keys(LOWERED), 'UPLOAD_EXPIRY_SECONDS']) delete process.env[name];
});

const bytes = (size: number, seed: number) => {
  const buffer = Buffer.alloc(size);
  for (let i = 0; i < size; i += 512) buffer[i] = (i / 512 + seed) % 251;
  return buffer;
};
const sha256 = (buffer: Buffer) => createHash('sha256').update(buffer).digest('hex');

/** Begins an upload of `file` and sends its parts. */
async function send(api: Api, name: string, file: Buffer, declared: string): Promise<Upload> {
  const folder = await newFolder(api, ctx.repo.rootFolderId);
  const started = ensure(await api.post('/uploads', { folderId: folder.id, name, size: file.length, sha256: declared }), 201)
    .body as Upload;
  const parts = started.parts!.map((_part, i) => file.subarray(i * PART, (i + 1) * PART));
  const sent = await Promise.all(started.parts!.map((part, i) => fetch(part.url, { method: 'PUT', body: parts[i] })));
  expect(sent.map((r) => r.status)).toEqual(parts.map(() => 200));
  return started;
}

/** Completes an upload whose bytes were sent: 202, verifying. */
async function completeToVerifying(api: Api, started: Upload): Promise<void> {
  const verifying = await api.post(`/uploads/${started.id}/complete`, undefined);
  expect(verifying.status, verifying.text).toBe(202);
  expect(verifying.body).toMatchObject({ id: started.id, status: 'verifying' });
}

/** Begins an upload of `file`, sends its parts, and completes it: 202, verifying. */
async function sendAndComplete(api: Api, name: string, file: Buffer, declared: string): Promise<Upload> {
  const started = await send(api, name, file, declared);
  await completeToVerifying(api, started);
  return started;
}

const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

/**
 * The progress (bytes hashed) of the upload's verify task, or undefined when there is none (done):
 * one GetItem of the task (`verifyTaskId`),
 * not a Scan, which, every 10 ms, kept the file's DynamoDB Local busy beside the worker it watches.
 */
async function verifyProgress(uploadId: string): Promise<number | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: taskKey(verifyTaskId(uploadId)), ConsistentRead: true }));
  return Item ? Number(Item.cursor ?? 0) : undefined;
}

/**
 * Watches the verification until its task is gone: every offset it was seen at. Each step hashes
 * what its time budget allows (TASK_BUDGET_MS), so on a loaded machine a step does less and there
 * are more of them: the bound is for a verification that never ends, not a speed.
 */
async function watchVerification(uploadId: string, timeoutMs = 150_000): Promise<number[]> {
  const seen: number[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const offset = await verifyProgress(uploadId);
    if (offset === undefined) return seen;
    if (seen.at(-1) !== offset) seen.push(offset);
    if (Date.now() > deadline) throw new Error(`still verifying after ${timeoutMs} ms, seen at ${seen.join(', ')}`);
    // Often enough to see most steps (each is a round of the worker), not a read every 10 ms
    // beside the worker for the whole verification.
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function uploadNow(api: Api, id: string): Promise<Upload> {
  return ensure(await api.get(`/uploads/${id}`), 200).body as Upload;
}

describe('a file verified over several invocations', () => {
  it('is hashed a range at a time, resuming from the saved state, and makes its version exactly once', async () => {
    const file = bytes(PART + 3 * MiB + 5, 3);
    const { cursor } = ensure(await ctx.owner.api.get(`/${ctx.repo.id}/changes?cursor=latest`), 200).body as { cursor: string };
    const started = await sendAndComplete(ctx.owner.api, 'several.bin', file, sha256(file));
    const offsets = await watchVerification(started.id);
    // Each offset is a step's saved state, each step an invocation of its own (TASK_BUDGET_MS).
    expect(offsets.filter((offset) => offset > 0 && offset < file.length).length, `offsets seen: ${offsets}`).toBeGreaterThanOrEqual(3);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));

    const done = ensure(await ctx.owner.api.post(`/uploads/${started.id}/complete`, undefined), 200).body as Document;
    expect(done).toMatchObject({ id: started.documentId, size: file.length, sha256: sha256(file), version: 1 });
    await ctx.svc.worker.settled();
    const document = ensure(await ctx.owner.api.get(`/document/${started.documentId}`), 200).body as Document;
    expect(document.version).toBe(1);
    const changes = ensure(await ctx.owner.api.get(`/${ctx.repo.id}/changes?cursor=${encodeURIComponent(cursor)}&limit=100`), 200).body as {
      items: { type: string; id: string }[];
    };
    expect(changes.items.filter((c) => c.id === started.documentId)).toEqual([
      expect.objectContaining({ type: 'created', id: started.documentId }),
    ]);
  }, 200_000);

  it('fails the upload when the digest is not the one declared, and deletes its bytes', async () => {
    const file = bytes(PART + 2 * MiB, 4);
    const started = await sendAndComplete(ctx.owner.api, 'mismatch.bin', file, sha256(Buffer.from('something else')));
    await watchVerification(started.id);
    const failed = await uploadNow(ctx.owner.api, started.id);
    expect(failed).toMatchObject({ status: 'failed', problem: { type: 'urn:problem-type:documents:upload-mismatch' } });
    expect(failed.problem?.detail).toContain(sha256(file));
    const answer = await ctx.owner.api.post(`/uploads/${started.id}/complete`, undefined);
    expect(answer.status).toBe(409);
    const key = `files/${ctx.repo.id}/${started.documentId}/${started.id}`;
    await expect(ctx.bucket.send(new HeadObjectCommand({ Bucket: ctx.svc.s3.bucket, Key: key }))).rejects.toThrow();
    expect((await ctx.owner.api.get(`/document/${started.documentId}`)).status).toBe(404);
  });

  it('does not expire while it is being verified: the expiry clock stops at complete', async () => {
    // An upload that lives 5 s, completed 1 s before it expires, and a verification that takes
    // longer than that on any machine: a two-part file (a one-part file is completed by its Object
    // Created event, before the test would) of 8.25 MiB hashed 32 KiB an invocation, 264 of them,
    // each a round of the worker (~20 ms on an idle machine: the verification outlasted the expiry by ~4.3 s; longer on a loaded one). With
    // 128 KiB (66 rounds), an idle machine finished before the expiry and the test failed. Each
    // invocation has 100 ms for its range: with 1 ms, on a loaded run most rounds hashed nothing and
    // the verification took minutes. Completed at the last moment, not at once: how long the
    // verification must outlast does not depend on how long the upload and its bytes took to send.
    process.env.UPLOAD_EXPIRY_SECONDS = '5';
    process.env.VERIFY_STEP_BYTES = String(32 * 1024);
    const file = bytes(PART + 256 * 1024, 5);
    const started = await send(ctx.owner.api, 'slow.bin', file, sha256(file));
    await sleepUntil(Date.parse(started.expiresAt) - 1_000);
    await completeToVerifying(ctx.owner.api, started);
    await sleepUntil(Date.parse(started.expiresAt) + 200);
    const stillVerifying = await verifyProgress(started.id);
    expect(stillVerifying, 'the verification ended before the upload expired: make it slower').toBeDefined();
    expect((await uploadNow(ctx.owner.api, started.id)).status).toBe('verifying');
    // The sweeper, taking every upload whose time came, leaves it to its task.
    await sweepNow({ graceSeconds: 0 });
    expect((await uploadNow(ctx.owner.api, started.id)).status).toBe('verifying');
    // What it had to show is shown: the rest is hashed a MiB a step (each step reads the setting),
    // not in the ~200 rounds of 32 KiB left, which took a minute of both cores on a loaded run.
    process.env.VERIFY_STEP_BYTES = String(MiB);
    await watchVerification(started.id);
    // Completed (GET /uploads/{id} of an upload past its expiry is 410 whatever it became; complete answers its Document).
    const done = ensure(await ctx.owner.api.post(`/uploads/${started.id}/complete`, undefined), 200).body as Document;
    expect(done).toMatchObject({ id: started.documentId, sha256: sha256(file), version: 1 });
  }, 200_000);
});
