/**
 * When the file bucket cannot be reached (the S3 emulator gone, S3 down), every request that
 * needs it answers 503 with Retry-After, never 500, and reveals nothing internal; what it would
 * have changed is unchanged (docs/api.md: Errors). A cancel is recorded without the bucket, and
 * the sweeper deletes what was sent once the bucket is back.
 */

import { join } from 'node:path';
import { UploadPartCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { s3 as handlersS3Client } from '#core/bucket';
import { uploadKey } from '#core/items/keys';
import { allFunctions } from '#functions/routes';
import { type KeyPair, signAsServedFunction } from '#lib/local/permissions';
import { functionCredentials } from '#lib/local/s3';
import { sweepNow } from '#lib/local/worker';
import { rawItem } from '#test/support/dynamodb';
import { useService } from '#test/support/fixture';
import { type Api, ensure, expectProblem, newRepository, newUser } from '#test/support/http';

const ctx = useService({ seed: async (svc) => ({ owner: await newUser(svc) }) });

const MiB = 1024 * 1024;
const usedBytes = async (api: Api, repositoryId: string) =>
  (ensure(await api.get(`/${repositoryId}`), 200).body.usage as { bytes: number }).bytes;

describe('when the file bucket is unavailable', () => {
  it('answers 503 with Retry-After on every request that needs it, changes nothing, and a cancel’s parts go once it is back', async () => {
    const repository = await newRepository(ctx.owner.api);
    const folderId = repository.rootFolderId;
    const multipart = ensure(await ctx.owner.api.post('/uploads', { folderId, name: 'multi.bin', size: 9 * MiB }), 201).body as {
      id: string;
      documentId: string;
      parts: { url: string }[];
    };
    const single = ensure(await ctx.owner.api.post('/uploads', { folderId, name: 'single.bin', size: 5 }), 201).body as { id: string };
    expect((await fetch(multipart.parts[0]!.url, { method: 'PUT', body: Buffer.alloc(8 * MiB) })).status).toBe(200);
    expect(await usedBytes(ctx.owner.api, repository.id)).toBe(9 * MiB + 5);
    const stored = (await rawItem(uploadKey(repository.id, multipart.id)))!;

    const endpoint = process.env.S3_ENDPOINT;
    try {
      // The handlers' S3 client follows S3_ENDPOINT (functions/core/bucket.ts): a port nothing listens on.
      process.env.S3_ENDPOINT = 'http://127.0.0.1:9';
      const requests = {
        'a multipart upload start': () => ctx.owner.api.post('/uploads', { folderId, name: 'later.bin', size: 9 * MiB }),
        'an upload read': () => ctx.owner.api.get(`/uploads/${multipart.id}`),
        'a completion': () => ctx.owner.api.post(`/uploads/${single.id}/complete`, undefined),
      };
      for (const [what, send] of Object.entries(requests)) {
        const res = await send();
        expectProblem(res, 503);
        expect(Number(res.headers.get('retry-after')), what).toBeGreaterThan(0);
        expect(res.text, what).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at .*\.ts|S3/);
      }
      // Nothing changed: both uploads are still open, and the refused start reserved nothing.
      for (const id of [multipart.id, single.id]) expect((await rawItem(uploadKey(repository.id, id)))?.status).toBe('open');
      expect(await usedBytes(ctx.owner.api, repository.id)).toBe(9 * MiB + 5);
      // A cancel is recorded without the bucket (its answer stands), its reservation given back.
      expect((await ctx.owner.api.delete(`/uploads/${multipart.id}`)).status).toBe(204);
      const cancelled = await rawItem(uploadKey(repository.id, multipart.id));
      expect(cancelled).toMatchObject({ status: 'cancelled', sweepShard: expect.any(String), waitingSince: expect.any(String) });
      expect(await usedBytes(ctx.owner.api, repository.id)).toBe(5);
    } finally {
      process.env.S3_ENDPOINT = endpoint;
    }
    // The handlers' client for the emulator again: a new endpoint made a new S3 client, which the
    // local runtime signed at its start only; sign it as each function again, as it did.
    const keys = new Map<string, KeyPair>();
    for (const fn of allFunctions()) keys.set(fn.name, await functionCredentials(join(ctx.svc.dataDir, 's3'), fn.name));
    signAsServedFunction(handlersS3Client(), (name) => keys.get(name)!, ctx.svc.s3.credentials);

    // The bucket back, the sweeper deletes the parts the cancel left: the multipart upload is gone, and the upload leaves the sweep index.
    const sendPart = () =>
      ctx.bucket.send(
        new UploadPartCommand({
          Bucket: ctx.svc.s3.bucket,
          Key: stored.objectKey as string,
          UploadId: stored.s3UploadId as string,
          PartNumber: 2,
          Body: Buffer.alloc(1),
        }),
      );
    await sweepNow({ graceSeconds: 0 });
    await expect(sendPart()).rejects.toMatchObject({ name: 'NoSuchUpload' });
    const swept = await rawItem(uploadKey(repository.id, multipart.id));
    expect(swept).toMatchObject({ status: 'cancelled' });
    expect(swept).not.toHaveProperty('sweepShard');
  });
});
