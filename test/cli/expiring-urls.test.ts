/**
 * Presigned URLs die with the credentials that signed them (S3 user guide, "Sharing objects with
 * presigned URLs"), whatever `X-Amz-Expires` says. Here the functions' sessions last 4 seconds
 * (LOCAL_SESSION_SECONDS, lib/local/s3-sessions.ts): the service never promises an `expiresAt`
 * past its signing session, and the files client, finding a URL refused with 400 ExpiredToken
 * mid-upload, asks for fresh URLs (POST /uploads/{id}/parts) and completes.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createFilesApi, expectData, type FilesApi } from '#lib/files-client/api';
import type { Upload } from '#lib/files-client/paths';
import { completeUpload, sendParts } from '#lib/files-client/upload';
import { useServiceWithOwner } from '#test/support/fixture';

const SESSION_SECONDS = 4;
// Read by the S3 emulator when the service starts (this file's own process).
process.env.LOCAL_SESSION_SECONDS = String(SESSION_SECONDS);

const MiB = 1024 * 1024;
const ctx = useServiceWithOwner();
const quiet = { write: () => true };

/** The API as the files client calls it, counting the requests for fresh part URLs. */
function countingApi(): { api: FilesApi; freshUrlRequests: () => number } {
  const api = createFilesApi(ctx.svc.url, ctx.user.api.token!);
  let fresh = 0;
  const post = api.POST.bind(api);
  api.POST = ((path: string, init: unknown) => {
    if (path === '/uploads/{id}/parts') fresh++;
    return post(path as never, init as never);
  }) as FilesApi['POST'];
  return { api, freshUrlRequests: () => fresh };
}

const amzExpires = (url: string) => Number(new URL(url).searchParams.get('X-Amz-Expires'));

describe('presigned URLs and the credentials that sign them', () => {
  it('are never promised past the signing session: expiresAt and X-Amz-Expires within it, at the start and for fresh URLs', async () => {
    const { api } = countingApi();
    const before = Date.now();
    const upload = expectData(
      'POST /uploads',
      await api.POST('/uploads', { body: { folderId: ctx.repo.rootFolderId, name: 'bounded.bin', size: 9 * MiB } }),
    );
    const answered = Date.now();
    const beforeFresh = Date.now();
    const fresh = expectData(
      'POST /uploads/{id}/parts',
      await api.POST('/uploads/{id}/parts', { params: { path: { id: upload.id } }, body: { numbers: [1, 2] } }),
    ).items;
    const freshAnswered = Date.now();
    // Signed between the request and its answer, by a session begun no later than the answer: dead by the answer + a session's life.
    for (const [parts, asked, answer] of [
      [upload.parts!, before, answered],
      [fresh, beforeFresh, freshAnswered],
    ] as const) {
      for (const part of parts) {
        expect(Date.parse(part.expiresAt), part.expiresAt).toBeGreaterThan(asked);
        expect(Date.parse(part.expiresAt) - answer, part.expiresAt).toBeLessThanOrEqual(SESSION_SECONDS * 1000);
        expect(amzExpires(part.url)).toBeLessThanOrEqual(SESSION_SECONDS);
      }
    }
  });

  it('refused as expired (400 ExpiredToken) mid-upload, are replaced by fresh ones and the upload completes', async () => {
    const { api, freshUrlRequests } = countingApi();
    const bytes = randomBytes(9 * MiB);
    const started = expectData(
      'POST /uploads',
      await api.POST('/uploads', { body: { folderId: ctx.repo.rootFolderId, name: 'mid-upload.bin', size: bytes.length } }),
    );
    expect(started.partCount).toBe(2);
    const upload: Upload = { ...started, received: [] };
    // Part 1's first send stalls until the session that signed its URL is over: the bucket refuses it.
    let stalled = false;
    const source = (start: number, length: number) => {
      const slice = bytes.subarray(start, start + length);
      if (start !== 0 || stalled) return Readable.from([slice]);
      stalled = true;
      // Longer than a whole session: whichever session signed the URL in hand has ended.
      const waitMs = SESSION_SECONDS * 1000 + 500;
      return Readable.from(
        (async function* () {
          await sleep(waitMs);
          yield slice;
        })(),
      );
    };
    await sendParts(api, upload, source, { parallel: 1, output: quiet });
    expect(stalled).toBe(true);
    expect(freshUrlRequests()).toBeGreaterThan(0);
    const document = await completeUpload(api, upload, () => sendParts(api, upload, source, { parallel: 1, output: quiet }));
    expect(document).toMatchObject({ id: started.documentId, size: bytes.length, storage: 'file' });
  }, 60_000);
});
