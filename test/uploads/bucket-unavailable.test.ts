/**
 * When the file bucket cannot be reached (the S3 emulator gone, S3 down), every request that
 * needs it answers 503 with Retry-After, never 500, and reveals nothing internal; what it would
 * have changed is unchanged (docs/api.md: Errors).
 */
import { describe, expect, it } from 'vitest';
import { uploadKey } from '#core/items/keys';
import { rawItem } from '#test/support/dynamodb';
import { useService } from '#test/support/fixture';
import { ensure, expectProblem, newRepository, newUser } from '#test/support/http';

const ctx = useService({ seed: async (svc) => ({ owner: await newUser(svc) }) });

describe('when the file bucket is unavailable', () => {
  it('answers 503 with Retry-After on every request that needs it', async () => {
    const repository = await newRepository(ctx.owner.api);
    const folderId = repository.rootFolderId;
    const multipart = ensure(await ctx.owner.api.post('/uploads', { folderId, name: 'multi.bin', size: 9 * 1024 * 1024 }), 201).body as {
      id: string;
    };
    const single = ensure(await ctx.owner.api.post('/uploads', { folderId, name: 'single.bin', size: 5 }), 201).body as { id: string };
    // The handlers' S3 client follows S3_ENDPOINT (functions/core/bucket.ts): a port nothing listens on.
    process.env.S3_ENDPOINT = 'http://127.0.0.1:9';
    const requests = {
      'a multipart upload start': () => ctx.owner.api.post('/uploads', { folderId, name: 'later.bin', size: 9 * 1024 * 1024 }),
      'an upload read': () => ctx.owner.api.get(`/uploads/${multipart.id}`),
      'a completion': () => ctx.owner.api.post(`/uploads/${single.id}/complete`, undefined),
    };
    for (const [what, send] of Object.entries(requests)) {
      const res = await send();
      expectProblem(res, 503);
      expect(Number(res.headers.get('retry-after')), what).toBeGreaterThan(0);
      expect(res.text, what).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at .*\.ts|S3/);
    }
    // Nothing changed: both uploads are still open.
    for (const id of [multipart.id, single.id]) expect((await rawItem(uploadKey(repository.id, id)))?.status).toBe('open');
    // A cancel is recorded without the bucket (its answer stands); the sweeper deletes the parts later.
    expect((await ctx.owner.api.delete(`/uploads/${multipart.id}`)).status).toBe(204);
    const cancelled = await rawItem(uploadKey(repository.id, multipart.id));
    expect(cancelled).toMatchObject({ status: 'cancelled', sweepShard: expect.any(String), waitingSince: expect.any(String) });
    process.env.S3_ENDPOINT = ctx.svc.s3.endpoint;
  });
});
