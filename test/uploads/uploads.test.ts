/**
 * Uploads (docs/api.md: Files): a file sent straight to the local bucket through presigned URLs
 * and completed into a version of a document, on the real DynamoDB Local and S3 emulator. Every
 * endpoint, status and limit of the five upload routes; the finaliser (the bucket's
 * ObjectCreated) and the sweeper (expiry, lost notifications) through the running service.
 */
import { createHash } from 'node:crypto';
import { HeadObjectCommand, PutObjectCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { uploadKey } from '#core/items/keys';
import { sweepNow } from '#lib/local/worker';
import { rawItem } from '#test/support/dynamodb';
import { useService } from '#test/support/fixture';
import {
  type Api,
  type Document,
  ensure,
  expectJson,
  expectProblem,
  expectValidationError,
  type HttpResponse,
  newFolder,
  newRepository,
  newUser,
  uniqueName,
} from '#test/support/http';

const MiB = 1024 * 1024;
const PART = 8 * MiB;
const upload = (type: string) => `urn:problem-type:documents:${type}`;

type Upload = import('#core/resources').Upload;

const ctx = useService({
  seed: async (svc) => {
    const owner = await newUser(svc);
    const other = await newUser(svc);
    return { owner, other, repo: await newRepository(owner.api) };
  },
});
afterEach(() => {
  delete process.env.QUOTA_BYTES;
  delete process.env.UPLOAD_EXPIRY_SECONDS;
});

const bytes = (size: number, seed = 1) => {
  const buffer = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4096) buffer[i] = (i / 4096 + seed) % 251;
  return buffer;
};
const sha256 = (buffer: Buffer) => createHash('sha256').update(buffer).digest('hex');

async function start(api: Api, body: Record<string, unknown>) {
  return api.post('/uploads', body);
}
async function begin(api: Api, body: Record<string, unknown>): Promise<Upload> {
  const res = ensure(await start(api, body), 201);
  return res.body as Upload;
}
/** One plain PUT of a part's bytes to its URL: no header but what fetch adds. */
async function put(url: string, body: Buffer) {
  return fetch(url, { method: 'PUT', body });
}
const complete = (api: Api, id: string) => api.post(`/uploads/${id}/complete`, undefined);
const get = (api: Api, id: string) => api.get(`/uploads/${id}`);
const objectExists = async (key: string) =>
  ctx.bucket.send(new HeadObjectCommand({ Bucket: ctx.svc.s3.bucket, Key: key })).then(
    () => true,
    () => false,
  );
const objectKeyOf = (u: Upload) => `files/${u.repositoryId}/${u.documentId}/${u.id}`;
/** The repository's usage (GET /{id}): what its kept versions and open uploads hold. */
const usedBytes = async (api: Api, repositoryId: string) =>
  (ensure(await api.get(`/${repositoryId}`), 200).body.usage as { bytes: number }).bytes;
/** A repository of the owner's with nothing in it yet: its usage is what the test does. */
async function emptyRepository() {
  const repository = await newRepository(ctx.owner.api);
  expect(await usedBytes(ctx.owner.api, repository.id)).toBe(0);
  return repository;
}
/** GET /document/{id}/content's 302, followed as a client would: a plain fetch of the presigned URL. */
async function download(api: Api, documentId: string): Promise<{ redirect: HttpResponse; fetched: Response; bytes: Buffer }> {
  const redirect = await api.request('GET', `/document/${documentId}/content`, { redirect: 'manual' });
  expect(redirect.status, redirect.text).toBe(302);
  const fetched = await fetch(redirect.headers.get('location')!);
  return { redirect, fetched, bytes: Buffer.from(await fetched.arrayBuffer()) };
}

describe('a file in two parts', () => {
  it('is started, resumed from what the bucket holds, completed once, and read back', async () => {
    const folder = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    const file = bytes(PART + 1000);
    const res = await start(ctx.owner.api, {
      folderId: folder.id,
      name: 'video.mp4',
      size: file.length,
      contentType: 'video/mp4',
      sha256: sha256(file),
    });
    expectJson(res, 201);
    const started = res.body as Upload;
    expect(res.headers.get('location')).toBe(`/uploads/${started.id}`);
    expect(started).toMatchObject({
      folderId: folder.id,
      repositoryId: ctx.repo.id,
      name: 'video.mp4',
      size: file.length,
      partSize: PART,
      partCount: 2,
      status: 'open',
    });
    expect(started.parts?.map((p) => p.number)).toEqual([1, 2]);
    // Nothing is visible before completion.
    expectProblem(await ctx.owner.api.get(`/document/${started.documentId}`), 404);

    expect((await put(started.parts![1]!.url, file.subarray(PART))).status).toBe(200);
    const halfway = ensure(await get(ctx.owner.api, started.id), 200).body as Upload;
    expect(halfway.received).toEqual([{ number: 2, size: 1000 }]);
    expect(halfway.parts).toBeUndefined();

    const early = await complete(ctx.owner.api, started.id);
    expectProblem(early, 409, upload('upload-incomplete'));
    expect(early.body.detail).toMatch(/1/);
    expect((ensure(await get(ctx.owner.api, started.id), 200).body as Upload).status).toBe('open');

    // A fresh URL for the missing part, then the rest.
    const fresh = ensure(await ctx.owner.api.post(`/uploads/${started.id}/parts`, { numbers: [1] }), 200).body as {
      items: { number: number; url: string }[];
    };
    expect(fresh.items.map((p) => p.number)).toEqual([1]);
    expect((await put(fresh.items[0]!.url, file.subarray(0, PART))).status).toBe(200);

    const done = await complete(ctx.owner.api, started.id);
    expectJson(done, 200);
    const document = done.body as Document;
    expect(document).toMatchObject({
      id: started.documentId,
      name: 'video.mp4',
      storage: 'file',
      size: file.length,
      sha256: sha256(file),
      contentType: 'video/mp4',
      version: 1,
    });
    expect(done.headers.get('etag')).toBe('"1"');
    // Repeats answer the same Document.
    expect(ensure(await complete(ctx.owner.api, started.id), 200).body as Document).toEqual(document);
    expect((ensure(await get(ctx.owner.api, started.id), 200).body as Upload).status).toBe('completed');
    expectProblem(await ctx.owner.api.delete(`/uploads/${started.id}`), 409, upload('upload-closed'));

    const read = ensure(await ctx.owner.api.get(`/document/${document.id}`), 200).body as Document;
    expect(read).toMatchObject({ storage: 'file', size: file.length });
    expect(read.content).toBeUndefined();
    // Read back: the bucket serves the bytes sent, under the document's name.
    const { redirect, fetched, bytes: served } = await download(ctx.owner.api, document.id);
    const disposition = `attachment; filename="video.mp4"; filename*=UTF-8''video.mp4`;
    expect(redirect.headers.get('content-disposition')).toBe(disposition);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-disposition')).toBe(disposition);
    expect(fetched.headers.get('content-type')).toBe('video/mp4');
    expect(served.length).toBe(file.length);
    expect(served.equals(file)).toBe(true);
  });

  it('fails at `complete` when the bytes are not the SHA-256 declared: 409, bytes deleted, reservation given back', async () => {
    // Two parts: the bucket's event for the joined object leaves a small file to `complete`, which hashes it itself.
    const repository = await emptyRepository();
    const file = bytes(PART + 10, 3);
    const started = await begin(ctx.owner.api, {
      folderId: repository.rootFolderId,
      name: 'tampered.bin',
      size: file.length,
      sha256: sha256(Buffer.concat([file.subarray(0, PART), Buffer.from('x'.repeat(10))])),
    });
    expect(await usedBytes(ctx.owner.api, repository.id)).toBe(file.length);
    await Promise.all([put(started.parts![0]!.url, file.subarray(0, PART)), put(started.parts![1]!.url, file.subarray(PART))]);
    const res = await complete(ctx.owner.api, started.id);
    expectProblem(res, 409, upload('upload-mismatch'));
    await ctx.svc.worker.settled();
    expect(ensure(await get(ctx.owner.api, started.id), 200).body as Upload).toMatchObject({
      status: 'failed',
      problem: { type: upload('upload-mismatch') },
    });
    expect(await objectExists(objectKeyOf(started))).toBe(false);
    expectProblem(await ctx.owner.api.get(`/document/${started.documentId}`), 404);
    expect(await usedBytes(ctx.owner.api, repository.id)).toBe(0);
  });

  it('makes exactly one version when completions race', async () => {
    const folder = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    const file = bytes(PART + 5, 7);
    const started = await begin(ctx.owner.api, { folderId: folder.id, name: 'raced.bin', size: file.length });
    await Promise.all([put(started.parts![0]!.url, file.subarray(0, PART)), put(started.parts![1]!.url, file.subarray(PART))]);
    await ctx.svc.worker.settled();
    const { cursor } = ensure(await ctx.owner.api.get(`/${ctx.repo.id}/changes?cursor=latest`), 200).body as { cursor: string };
    const answers = await Promise.all(Array.from({ length: 6 }, () => complete(ctx.owner.api, started.id)));
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    expect(answers.map((a) => a.body)).toEqual(answers.map(() => answers[0]!.body));
    await ctx.svc.worker.settled();
    const changes = ensure(await ctx.owner.api.get(`/${ctx.repo.id}/changes?cursor=${encodeURIComponent(cursor)}&limit=100`), 200).body as {
      items: { type: string; id: string }[];
    };
    expect(changes.items.filter((c) => c.id === started.documentId)).toEqual([
      expect.objectContaining({ type: 'created', id: started.documentId }),
    ]);
  });
});

describe('a file too large to verify in the request', () => {
  it('answers 202 with Retry-After while the finaliser verifies it, then the Document', async () => {
    process.env.UPLOAD_VERIFY_INLINE_BYTES = String(1024 * 1024);
    try {
      const folder = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
      const file = bytes(PART + 3, 9);
      const started = await begin(ctx.owner.api, { folderId: folder.id, name: 'large.bin', size: file.length, sha256: sha256(file) });
      await Promise.all([put(started.parts![0]!.url, file.subarray(0, PART)), put(started.parts![1]!.url, file.subarray(PART))]);
      const verifying = await complete(ctx.owner.api, started.id);
      expect(verifying.status, verifying.text).toBe(202);
      expect(Number(verifying.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(verifying.body).toMatchObject({ id: started.id, status: 'verifying' });
      // The finaliser, fed by the bucket's event for the joined object, verifies and completes it.
      await ctx.svc.worker.settled();
      const done = ensure(await complete(ctx.owner.api, started.id), 200).body as Document;
      expect(done).toMatchObject({ id: started.documentId, size: file.length, sha256: sha256(file), version: 1 });
    } finally {
      delete process.env.UPLOAD_VERIFY_INLINE_BYTES;
    }
  });
});

describe('a one-part file', () => {
  it('is completed by the bucket notification when the client sends the bytes and nothing else', async () => {
    const folder = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    const file = Buffer.from('%PDF-1.7 a small pdf\n');
    const started = await begin(ctx.owner.api, {
      folderId: folder.id,
      name: 'scan.pdf',
      size: file.length,
      contentType: 'application/pdf',
    });
    expect(started.partCount).toBe(1);
    expect((await put(started.parts![0]!.url, file)).status).toBe(200);
    await ctx.svc.worker.settled();
    const document = ensure(await ctx.owner.api.get(`/document/${started.documentId}`), 200).body as Document;
    expect(document).toMatchObject({ storage: 'file', size: file.length, sha256: sha256(file), contentType: 'application/pdf' });
    // complete afterwards answers the same version.
    expect((ensure(await complete(ctx.owner.api, started.id), 200).body as Document).version).toBe(1);
  });

  it('fails on a SHA-256 mismatch: 409, its bytes deleted, its reservation back, the same problem on every repeat', async () => {
    const repository = await emptyRepository();
    const file = Buffer.from('these are not the bytes declared');
    const started = await begin(ctx.owner.api, {
      folderId: repository.rootFolderId,
      name: 'bad.txt',
      size: file.length,
      sha256: sha256(Buffer.from('other')),
    });
    expect((await put(started.parts![0]!.url, file)).status).toBe(200);
    await ctx.svc.worker.settled();
    const res = await complete(ctx.owner.api, started.id);
    expectProblem(res, 409, upload('upload-mismatch'));
    expectProblem(await complete(ctx.owner.api, started.id), 409, upload('upload-mismatch'));
    const failed = ensure(await get(ctx.owner.api, started.id), 200).body as Upload;
    expect(failed).toMatchObject({ status: 'failed', problem: { type: upload('upload-mismatch'), status: 409 } });
    expect(await objectExists(objectKeyOf(started))).toBe(false);
    expectProblem(await ctx.owner.api.get(`/document/${started.documentId}`), 404);
    expect(await usedBytes(ctx.owner.api, repository.id)).toBe(0);
  });

  it('fails when the bytes are not the size declared, and gives its reservation back', async () => {
    const repository = await emptyRepository();
    const started = await begin(ctx.owner.api, { folderId: repository.rootFolderId, name: 'short.bin', size: 100 });
    expect(await usedBytes(ctx.owner.api, repository.id)).toBe(100);
    expect((await put(started.parts![0]!.url, bytes(60))).status).toBe(200);
    await ctx.svc.worker.settled();
    expectProblem(await complete(ctx.owner.api, started.id), 409, upload('upload-mismatch'));
    expect(await objectExists(objectKeyOf(started))).toBe(false);
    expect(await usedBytes(ctx.owner.api, repository.id)).toBe(0);
  });
});

describe('a new version of a document', () => {
  it('replaces the content at the version named, and is 412 when the document moved on', async () => {
    const folder = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    const first = await begin(ctx.owner.api, { folderId: folder.id, name: 'report.bin', size: 10 });
    await put(first.parts![0]!.url, bytes(10, 1));
    await ctx.svc.worker.settled();
    const stale = await begin(ctx.owner.api, { documentId: first.documentId, size: 20, version: 1 });
    const second = await begin(ctx.owner.api, { documentId: first.documentId, size: 30, version: 1 });
    expect(second).toMatchObject({ documentId: first.documentId, name: 'report.bin', folderId: folder.id });
    await put(second.parts![0]!.url, bytes(30, 2));
    await ctx.svc.worker.settled();
    expect(ensure(await ctx.owner.api.get(`/document/${first.documentId}`), 200).body as Document).toMatchObject({ version: 2, size: 30 });
    // Its bytes arrive after the document moved past version 1: it fails with 412, nothing changes.
    await put(stale.parts![0]!.url, bytes(20, 3));
    await ctx.svc.worker.settled();
    expectProblem(await complete(ctx.owner.api, stale.id), 412);
    expect((ensure(await ctx.owner.api.get(`/document/${first.documentId}`), 200).body as Document).version).toBe(2);
    expectProblem(await start(ctx.owner.api, { documentId: first.documentId, size: 1, version: 1 }), 412);
  });
});

describe('cancelling', () => {
  it('deletes the parts sent, shows cancelled, and refuses completion', async () => {
    const folder = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    const started = await begin(ctx.owner.api, { folderId: folder.id, name: 'gone.bin', size: PART + 1 });
    await put(started.parts![0]!.url, bytes(PART));
    expect((await ctx.owner.api.delete(`/uploads/${started.id}`)).status).toBe(204);
    expect((ensure(await get(ctx.owner.api, started.id), 200).body as Upload).status).toBe('cancelled');
    expectProblem(await complete(ctx.owner.api, started.id), 409, upload('upload-closed'));
    expectProblem(await ctx.owner.api.post(`/uploads/${started.id}/parts`, { numbers: [1] }), 409, upload('upload-closed'));
    // The multipart upload is aborted: a part sent now has nowhere to go.
    expect((await put(started.parts![1]!.url, bytes(1))).status).toBe(404);
    expect((await ctx.owner.api.delete(`/uploads/${started.id}`)).status).toBe(204);
  });
});

describe('who sees an upload', () => {
  it('is only the user who began it: anyone else gets 404 on every upload route', async () => {
    const folder = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    const started = await begin(ctx.owner.api, { folderId: folder.id, name: uniqueName('mine'), size: 10 });
    expectProblem(await get(ctx.other.api, started.id), 404);
    expectProblem(await ctx.other.api.post(`/uploads/${started.id}/parts`, { numbers: [1] }), 404);
    expectProblem(await complete(ctx.other.api, started.id), 404);
    expectProblem(await ctx.other.api.delete(`/uploads/${started.id}`), 404);
    expectProblem(await get(ctx.owner.api, 'not-an-upload'), 404);
  });

  it('cannot be started by a stranger to the repository (404) or a viewer (403)', async () => {
    expectProblem(await start(ctx.other.api, { folderId: ctx.repo.rootFolderId, name: 'x', size: 1 }), 404);
    const shared = await newRepository(ctx.owner.api);
    ensure(await ctx.owner.api.put(`/${shared.id}/members/${encodeURIComponent(ctx.other.sub)}`, { role: 'viewer' }), 201);
    expectProblem(await start(ctx.other.api, { folderId: shared.rootFolderId, name: 'x', size: 1 }), 403);
  });

  it('completes only while its author may still write: demoted to viewer, 403, and the upload fails', async () => {
    const shared = await newRepository(ctx.owner.api);
    const member = (role: string) => ctx.owner.api.put(`/${shared.id}/members/${encodeURIComponent(ctx.other.sub)}`, { role });
    ensure(await member('editor'), 201);
    const started = await begin(ctx.other.api, { folderId: shared.rootFolderId, name: 'late.bin', size: PART + 1 });
    await Promise.all([put(started.parts![0]!.url, bytes(PART)), put(started.parts![1]!.url, bytes(1))]);
    ensure(await member('viewer'), 200);
    expectProblem(await complete(ctx.other.api, started.id), 403);
    expect(ensure(await get(ctx.other.api, started.id), 200).body as Upload).toMatchObject({ status: 'failed', problem: { status: 403 } });
    expect(await objectExists(objectKeyOf(started))).toBe(false);
    expectProblem(await ctx.owner.api.get(`/document/${started.documentId}`), 404);
    expect(await usedBytes(ctx.owner.api, shared.id)).toBe(0);
  });
});

describe('bad input changes nothing', () => {
  it('is refused with a clear problem', async () => {
    const f = ctx.repo.rootFolderId;
    expectValidationError(await start(ctx.owner.api, { folderId: f, documentId: f, size: 1 }), 'documentId');
    expectValidationError(await start(ctx.owner.api, { size: 1 }), 'folderId');
    expectValidationError(await start(ctx.owner.api, { folderId: f, size: 1 }), 'name');
    expectValidationError(await start(ctx.owner.api, { folderId: f, name: 'a', size: -1 }), 'size');
    expectValidationError(await start(ctx.owner.api, { folderId: f, name: 'a', size: 1.5 }), 'size');
    expectValidationError(await start(ctx.owner.api, { folderId: f, name: 'a', size: 1, sha256: 'abc' }), 'sha256');
    expectValidationError(await start(ctx.owner.api, { folderId: f, name: 'a/b', size: 1 }), 'name');
    expectValidationError(await start(ctx.owner.api, { folderId: f, name: 'a', size: 1, extra: true }), 'extra');
    expectProblem(await start(ctx.owner.api, { folderId: f, name: 'a', size: 5 * 1024 ** 4 + 1 }), 413);
    const started = await begin(ctx.owner.api, { folderId: f, name: uniqueName('parts'), size: PART + 1 });
    const parts = (body: unknown) => ctx.owner.api.post(`/uploads/${started.id}/parts`, body);
    expectValidationError(await parts({ numbers: [] }), 'numbers');
    expectValidationError(await parts({ numbers: [0] }), 'numbers.0');
    expectValidationError(await parts({ numbers: [1, 1] }), 'numbers');
    expectValidationError(await parts({ numbers: [3] }), 'numbers');
    expectValidationError(await parts({ numbers: Array.from({ length: 101 }, (_, i) => i + 1) }), 'numbers');
  });

  it('refuses a name taken in the folder at start (409)', async () => {
    const folder = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    await newFolder(ctx.owner.api, folder.id, 'Taken');
    expectProblem(await start(ctx.owner.api, { folderId: folder.id, name: 'TAKEN', size: 1 }), 409);
  });
});

describe('the quota', () => {
  it('takes an upload of exactly the room left, and not one byte more', async () => {
    const repository = await emptyRepository();
    process.env.QUOTA_BYTES = String(10_000);
    const start1 = (name: string, size: number) => start(ctx.owner.api, { folderId: repository.rootFolderId, name, size });
    expectProblem(await start1('over', 10_001), 409, upload('quota-exceeded'));
    ensure(await start1('all-of-it', 10_000), 201);
    expect(await usedBytes(ctx.owner.api, repository.id)).toBe(10_000);
    expectProblem(await start1('one-more', 1), 409, upload('quota-exceeded'));

    const other = await emptyRepository();
    const startIn = (name: string, size: number) => start(ctx.owner.api, { folderId: other.rootFolderId, name, size });
    ensure(await startIn('most', 6_000), 201);
    expectProblem(await startIn('past-the-room', 4_001), 409, upload('quota-exceeded'));
    ensure(await startIn('the-rest', 4_000), 201);
    expect(await usedBytes(ctx.owner.api, other.id)).toBe(10_000);
    expectProblem(await startIn('none-left', 1), 409, upload('quota-exceeded'));
  });

  it('refuses an upload that would pass it before any byte, and counts racing starts exactly', async () => {
    const repository = await newRepository(ctx.owner.api);
    process.env.QUOTA_BYTES = String(10_000);
    expectProblem(
      await start(ctx.owner.api, { folderId: repository.rootFolderId, name: 'big', size: 10_001 }),
      409,
      upload('quota-exceeded'),
    );
    // Ten starts of 3,000 bytes race for 10,000: exactly three fit.
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => start(ctx.owner.api, { folderId: repository.rootFolderId, name: `part-${i}`, size: 3_000 })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    for (const refused of answers.filter((a) => a.status !== 201)) expectProblem(refused, 409, upload('quota-exceeded'));
    expect(await usedBytes(ctx.owner.api, repository.id)).toBe(9_000);
    // Cancelling one gives its bytes back.
    const one = answers.find((a) => a.status === 201)!.body as Upload;
    ensure(await ctx.owner.api.delete(`/uploads/${one.id}`), 204);
    expect(await usedBytes(ctx.owner.api, repository.id)).toBe(6_000);
    ensure(await start(ctx.owner.api, { folderId: repository.rootFolderId, name: 'fits-now', size: 3_000 }), 201);
  });
});

describe('expiry', () => {
  it('is 410 after it; the sweeper expires it (reservation back, parts aborted); bytes sent later make no version', async () => {
    // Five minutes, with the clock moved past them below: not a tiny expiry that the test waits for.
    process.env.UPLOAD_EXPIRY_SECONDS = '300';
    const repository = await emptyRepository();
    const started = await begin(ctx.owner.api, { folderId: repository.rootFolderId, name: 'late.bin', size: PART + 1 });
    expect((await put(started.parts![0]!.url, bytes(PART))).status).toBe(200);
    expect(await usedBytes(ctx.owner.api, repository.id)).toBe(PART + 1);
    const stored = (await rawItem(uploadKey(started.repositoryId, started.id)))!;
    const s3UploadId = stored.s3UploadId as string;
    expect(s3UploadId).toBeTruthy();
    const sendPart2 = () =>
      ctx.bucket.send(
        new UploadPartCommand({
          Bucket: ctx.svc.s3.bucket,
          Key: objectKeyOf(started),
          UploadId: s3UploadId,
          PartNumber: 2,
          Body: bytes(1),
        }),
      );

    // The service, its bucket and its token issuer run in this process: move this process's clock
    // past the upload's expiry. Not further: signed S3 requests may be 15 minutes off the bucket's
    // clock, and the Date header Node's HTTP server sends (which the SDK corrects its clock by) is real.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      vi.setSystemTime(Date.parse(started.expiresAt) + 1_000);
      const owner = ctx.owner.api;
      expectProblem(await get(owner, started.id), 410, upload('upload-expired'));
      expectProblem(await complete(owner, started.id), 410, upload('upload-expired'));
      expectProblem(await owner.post(`/uploads/${started.id}/parts`, { numbers: [2] }), 410, upload('upload-expired'));
      expectProblem(await owner.delete(`/uploads/${started.id}`), 410, upload('upload-expired'));
      // Refusing it changed nothing: still open, its bytes reserved, its multipart upload there.
      expect((await rawItem(uploadKey(started.repositoryId, started.id)))?.status).toBe('open');
      expect(await usedBytes(owner, repository.id)).toBe(PART + 1);
      await sendPart2();

      await sweepNow({ graceSeconds: 0 });
      expect((await rawItem(uploadKey(started.repositoryId, started.id)))?.status).toBe('expired');
      expect(await usedBytes(owner, repository.id)).toBe(0);
      // The sweeper aborted the multipart upload: no part can join it now.
      await expect(sendPart2()).rejects.toMatchObject({ name: 'NoSuchUpload' });

      // Bytes that reach the object's key later are deleted, and make no version.
      await ctx.bucket.send(new PutObjectCommand({ Bucket: ctx.svc.s3.bucket, Key: objectKeyOf(started), Body: bytes(PART + 1) }));
      await ctx.svc.worker.settled();
      expect(await objectExists(objectKeyOf(started))).toBe(false);
      expectProblem(await owner.get(`/document/${started.documentId}`), 404);
      expect(await usedBytes(owner, repository.id)).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
