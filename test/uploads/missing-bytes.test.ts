/**
 * A one-part upload whose bytes have not arrived, with the bucket answering as S3 does: a HEAD
 * of the missing object is 403, not 404, because no function holds an `s3:ListBucket` that
 * applies to it (S3 API reference, HeadObject; lib/local/s3.ts). The service must read that as
 * "not there yet": the upload reads 200 with nothing received, `complete` is 409
 * upload-incomplete and leaves it open, and the sweeper passes it by without a failure. Once the
 * bytes are sent, it completes.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Upload } from '#core/resources';
import { sweepNow } from '#lib/local/worker';
import { useService } from '#test/support/fixture';
import { ensure, expectProblem, newRepository, newUser } from '#test/support/http';

const ctx = useService({
  seed: async (svc) => {
    const owner = await newUser(svc);
    return { owner, repo: await newRepository(owner.api) };
  },
});
const incomplete = 'urn:problem-type:documents:upload-incomplete';

/** A one-part upload begun, its bytes not sent. */
async function begun(name: string): Promise<Upload> {
  const started = ensure(await ctx.owner.api.post('/uploads', { folderId: ctx.repo.rootFolderId, name, size: 1000 }), 201).body as Upload;
  expect(started.partCount).toBe(1);
  return started;
}
const statusOf = async (id: string) => (ensure(await ctx.owner.api.get(`/uploads/${id}`), 200).body as Upload).status;

describe('a one-part upload whose bytes have not arrived', () => {
  it('reads 200, open, with nothing received', async () => {
    const started = await begun('read.bin');
    const read = ensure(await ctx.owner.api.get(`/uploads/${started.id}`), 200).body as Upload;
    expect(read).toMatchObject({ status: 'open', received: [] });
  });

  it('completes 409 upload-incomplete and stays open; once the bytes are sent, it completes', async () => {
    const started = await begun('complete.bin');
    expectProblem(await ctx.owner.api.post(`/uploads/${started.id}/complete`, undefined), 409, incomplete);
    expect(await statusOf(started.id)).toBe('open');
    expect((await fetch(started.parts![0]!.url, { method: 'PUT', body: randomBytes(1000) })).status).toBe(200);
    const done = ensure(await ctx.owner.api.post(`/uploads/${started.id}/complete`, undefined), 200).body as { id: string; size: number };
    expect(done).toMatchObject({ id: started.documentId, size: 1000 });
  });

  it('is passed by the sweeper without a failure, and stays open', async () => {
    const started = await begun('swept.bin');
    const report = await sweepNow({ graceSeconds: 0 });
    expect(report).toMatchObject({ failed: 0 });
    expect(report?.uploads).toBeGreaterThanOrEqual(1);
    expect(await statusOf(started.id)).toBe('open');
  });
});
