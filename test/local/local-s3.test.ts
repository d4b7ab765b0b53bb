/**
 * The local S3 emulator (lib/local/s3.ts) answers as S3 does where the service relies on it,
 * proven with the real AWS SDK v3 client and presigned URLs, and a bare `fetch` as the client
 * that sends nothing but the bytes: signatures, expiry and alterations refused, the RFC 6266
 * disposition that s3rver mis-verified, ListParts, ListMultipartUploads and AbortMultipartUpload (which it lacks),
 * ListObjectsV2 past one page (which it fails on Node 20),
 * multipart with presigned part URLs, ObjectCreated notifications, and each function held to
 * the S3 actions its route declares (a route planted in this file's own process).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetBucketCorsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Template } from 'aws-cdk-lib/assertions';
import type { S3Event } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileKeyPrefix, type PresignableCommand, presignedUrl, s3 } from '#core/bucket';
import { type Route, routes } from '#functions/routes';
import { runAsFunction, signAsServedFunction } from '#lib/local/permissions';
import { LIST_WHOLE_BUCKET, type LocalS3, type S3Grant, startLocalS3 } from '#lib/local/s3';
import { buildApp, projectContext } from '#lib/stack/app';
import { testTemplate } from '#test/support/stack';

const MiB = 1024 * 1024;
let dataDir: string;
let local: LocalS3;
/** The runtime's own client (every right), and one that presigns as the service does. */
let admin: S3Client;
const events: S3Event[] = [];

const clientFor = (
  credentials: { accessKeyId: string; secretAccessKey: string },
  options: Partial<ConstructorParameters<typeof S3Client>[0]> = {},
) =>
  new S3Client({
    endpoint: local.endpoint,
    forcePathStyle: true,
    region: local.region,
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...options,
  });
const key = (name: string) => `${fileKeyPrefix}${randomBytes(4).toString('hex')}/${name}`;
const Bucket = () => local.bucket;
const presign = (command: PresignableCommand, expiresIn = 300, client = admin) =>
  getSignedUrl(client, command as GetObjectCommand, { expiresIn });
const errorCode = async (res: Response) => /<Code>([^<]+)<\/Code>/.exec(await res.text())?.[1];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'local-s3-'));
  local = await startLocalS3({ dataDir, port: 0 });
  local.onObjectCreated((event) => events.push(event));
  admin = clientFor(local.credentials);
});
afterAll(async () => {
  admin?.destroy();
  await local?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('presigned URLs', () => {
  it('take a plain PUT of the bytes (no checksum header) when presigned with requestChecksumCalculation WHEN_REQUIRED, and give them back', async () => {
    const Key = key('plain.bin');
    const bytes = randomBytes(100_000);
    const url = await presign(new PutObjectCommand({ Bucket: Bucket(), Key }));
    expect(url).not.toMatch(/checksum/i);
    const put = await fetch(url, { method: 'PUT', body: bytes });
    expect(put.status).toBe(200);
    const got = await fetch(await presign(new GetObjectCommand({ Bucket: Bucket(), Key })));
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    const ranged = await fetch(await presign(new GetObjectCommand({ Bucket: Bucket(), Key })), { headers: { range: 'bytes=10-19' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
  });

  it('presigned by a client with the SDK’s default checksums, carry checksum parameters a plain PUT cannot satisfy: refused, not stored unchecked', async () => {
    const Key = key('default-checksums.bin');
    const defaults = clientFor(local.credentials, { requestChecksumCalculation: 'WHEN_SUPPORTED' });
    const url = await presign(new PutObjectCommand({ Bucket: Bucket(), Key }), 300, defaults);
    defaults.destroy();
    expect(url).toMatch(/x-amz-(sdk-)?checksum/i);
    const put = await fetch(url, { method: 'PUT', body: randomBytes(1000) });
    expect(put.status).toBeGreaterThanOrEqual(400);
    expect((await fetch(await presign(new GetObjectCommand({ Bucket: Bucket(), Key })))).status).toBe(404);
  });

  it('refuse a URL altered in any way, with 403, and store nothing', async () => {
    const Key = key('altered.bin');
    const url = new URL(await presign(new PutObjectCommand({ Bucket: Bucket(), Key })));
    const signature = url.searchParams.get('X-Amz-Signature')!;
    const alterations: [string, (u: URL) => void][] = [
      ['signature', (u) => u.searchParams.set('X-Amz-Signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`)],
      [
        'key',
        (u) => {
          u.pathname = u.pathname.replace('altered', 'other');
        },
      ],
      ['expiry', (u) => u.searchParams.set('X-Amz-Expires', '604800')],
      ['an added parameter', (u) => u.searchParams.set('response-content-type', 'text/html')],
      [
        'credential',
        (u) => u.searchParams.set('X-Amz-Credential', u.searchParams.get('X-Amz-Credential')!.replace('LOCALROOT', 'LOCALFNFallback')),
      ],
    ];
    for (const [what, alter] of alterations) {
      const altered = new URL(url);
      alter(altered);
      const res = await fetch(altered, { method: 'PUT', body: 'x' });
      expect(res.status, what).toBe(403);
      // Another key: a function’s key is temporary, and means nothing without its token (403 InvalidAccessKeyId).
      expect(await errorCode(res), what).toMatch(/SignatureDoesNotMatch|AccessDenied|InvalidAccessKeyId/);
    }
    // A URL for PUT used for GET of the same object.
    expect((await fetch(url)).status).toBe(403);
    expect((await fetch(await presign(new GetObjectCommand({ Bucket: Bucket(), Key })))).status).toBe(404);
  });

  it('refuse an expired URL with 403 AccessDenied', async () => {
    const Key = key('expired.bin');
    await admin.send(new PutObjectCommand({ Bucket: Bucket(), Key, Body: 'kept' }));
    const url = await getSignedUrl(admin, new GetObjectCommand({ Bucket: Bucket(), Key }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 61_000),
    });
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Request has expired/);
  });

  it('answer unsigned requests with 403: the bucket is private', async () => {
    const Key = key('private.txt');
    await admin.send(new PutObjectCommand({ Bucket: Bucket(), Key, Body: 'secret' }));
    for (const [method, path] of [
      ['GET', `/${Bucket()}/${Key}`],
      ['PUT', `/${Bucket()}/${Key}`],
      ['DELETE', `/${Bucket()}/${Key}`],
      ['GET', `/${Bucket()}`],
    ] as const) {
      const res = await fetch(`${local.endpoint}${path}`, { method, ...(method === 'PUT' ? { body: 'overwritten' } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    const kept = await admin.send(new GetObjectCommand({ Bucket: Bucket(), Key }));
    expect(await kept.Body!.transformToString()).toBe('secret');
  });

  it('verify a GET with an RFC 6266 filename* disposition and answer with it (s3rver’s canonical query left ’ and * unescaped)', async () => {
    const Key = key("résumé (final) it's.pdf");
    await admin.send(new PutObjectCommand({ Bucket: Bucket(), Key, Body: '%PDF-1.7' }));
    const disposition = `attachment; filename="resume.pdf"; filename*=UTF-8''${encodeURIComponent("résumé (final) it's.pdf").replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
    for (const ResponseContentDisposition of [disposition, "attachment; filename*=UTF-8''a*b'c!(d).pdf"]) {
      const url = await presign(
        new GetObjectCommand({ Bucket: Bucket(), Key, ResponseContentDisposition, ResponseContentType: 'application/pdf' }),
      );
      const res = await fetch(url);
      expect(res.status, ResponseContentDisposition).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(ResponseContentDisposition);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(await res.text()).toBe('%PDF-1.7');
    }
  });
});

describe('CORS, exactly the deployed bucket’s (lib/bucket.ts corsRules, the stack’s and the emulator’s one source)', () => {
  const app = 'https://app.example.com';
  const preflight = (endpoint: string, Key: string, origin: string, method = 'PUT', headers = 'content-type') =>
    fetch(`${endpoint}/${Bucket()}/${Key}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
    });
  /** The rules as GetBucketCors reads them from an emulator, in the stack's terms. */
  const emulatorRules = async (emulator: LocalS3) => {
    const client = new S3Client({
      endpoint: emulator.endpoint,
      forcePathStyle: true,
      region: emulator.region,
      credentials: emulator.credentials,
    });
    try {
      const { CORSRules = [] } = await client.send(new GetBucketCorsCommand({ Bucket: emulator.bucket })).catch((error: Error) => {
        if (error.name === 'NoSuchCORSConfiguration') return { CORSRules: [] };
        throw error;
      });
      return CORSRules.map((rule) => ({
        AllowedOrigins: rule.AllowedOrigins,
        AllowedMethods: rule.AllowedMethods,
        AllowedHeaders: rule.AllowedHeaders,
        ExposedHeaders: rule.ExposeHeaders,
        MaxAge: rule.MaxAgeSeconds,
      }));
    } finally {
      client.destroy();
    }
  };
  /** The rules of the file bucket in a template the stack synthesizes. */
  const templateRules = (template: Template, appOrigin?: string) => {
    const buckets = Object.values(template.findResources('AWS::S3::Bucket')) as {
      Properties: { CorsConfiguration?: { CorsRules: unknown[] }; LifecycleConfiguration?: unknown };
    }[];
    const files = buckets.filter((bucket) => JSON.stringify(bucket.Properties.LifecycleConfiguration ?? '').includes('AbortIncomplete'));
    expect(files).toHaveLength(1);
    const rules = (files[0]!.Properties.CorsConfiguration?.CorsRules ?? []) as { AllowedOrigins: unknown[] }[];
    // The web app's origin is the distribution's address deployed (a token here), the service's own
    // locally (lib/local/service.ts passes it): `appOrigin` stands for it; without one it is left out.
    return rules
      .map((rule) => ({
        ...rule,
        AllowedOrigins: rule.AllowedOrigins.flatMap((origin) => (typeof origin === 'string' ? [origin] : appOrigin ? [appOrigin] : [])),
      }))
      .filter((rule) => rule.AllowedOrigins.length > 0);
  };

  it('has the rules the stack synthesizes for the same origins', async () => {
    const corsOrigins = [app, 'https://admin.example.com'];
    const appOrigin = 'http://127.0.0.1:3000';
    const dir = await mkdtemp(join(tmpdir(), 'local-s3-cors-'));
    const emulator = await startLocalS3({ dataDir: dir, port: 0, corsOrigins: [...corsOrigins, appOrigin] });
    try {
      const rules = await emulatorRules(emulator);
      expect(rules).toHaveLength(1);
      expect(rules).toEqual(templateRules(testTemplate({ corsOrigins }), appOrigin));
    } finally {
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('by default has the rules the stack synthesizes for the environment the local service stands for, but the web app’s origin (cdk.json, dev: none, so every preflight is refused)', async () => {
    const dev = buildApp({ context: { ...projectContext(), env: 'dev', 'aws:cdk:bundling-stacks': [] } });
    expect(await emulatorRules(local)).toEqual(templateRules(Template.fromStack(dev.stack)));
    const res = await preflight(local.endpoint, key('cors.bin'), 'http://localhost:5173');
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe('CORSResponse');
  }, 120_000);

  it('allows a configured origin only, for the methods and headers of the rule, and echoes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'local-s3-cors-'));
    const emulator = await startLocalS3({ dataDir: dir, port: 0, corsOrigins: [app] });
    try {
      const Key = key('cors.bin');
      const allowed = await preflight(emulator.endpoint, Key, app);
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(app);
      expect(allowed.headers.get('access-control-allow-methods')).toBe('GET, HEAD, PUT');
      expect(allowed.headers.get('access-control-allow-headers')).toBe('content-type');
      expect(allowed.headers.get('access-control-expose-headers')).toBe('etag, content-range, accept-ranges, content-disposition');
      expect(allowed.headers.get('access-control-max-age')).toBe('3600');
      for (const [what, res] of [
        ['another origin', await preflight(emulator.endpoint, Key, 'https://evil.example.com')],
        ['a method outside the rule', await preflight(emulator.endpoint, Key, app, 'DELETE')],
        ['a header outside the rule', await preflight(emulator.endpoint, Key, app, 'PUT', 'content-type, x-custom')],
      ] as const) {
        expect(res.status, what).toBe(403);
        expect(await errorCode(res), what).toBe('CORSResponse');
      }
      // A request itself: the allowed origin is named in the answer; another gets no CORS header (the browser then hides the answer).
      const root = new S3Client({
        endpoint: emulator.endpoint,
        forcePathStyle: true,
        region: emulator.region,
        credentials: emulator.credentials,
        requestChecksumCalculation: 'WHEN_REQUIRED',
      });
      await root.send(new PutObjectCommand({ Bucket: emulator.bucket, Key, Body: 'x' }));
      const url = await getSignedUrl(root, new GetObjectCommand({ Bucket: emulator.bucket, Key }), { expiresIn: 60 });
      root.destroy();
      expect((await fetch(url, { headers: { origin: app } })).headers.get('access-control-allow-origin')).toBe(app);
      expect((await fetch(url, { headers: { origin: 'https://evil.example.com' } })).headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await emulator.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('listing objects (ListObjectsV2)', () => {
  it('pages with continuation tokens (s3rver made them with DES, which Node’s OpenSSL 3 lacks), under a prefix, with common prefixes', async () => {
    const prefix = key('paged/');
    const names = ['a', 'b', 'c', 'd', 'e', 'sub/f', 'sub/g'];
    for (const name of names) await admin.send(new PutObjectCommand({ Bucket: Bucket(), Key: `${prefix}${name}`, Body: name }));
    const pages: string[][] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await admin.send(new ListObjectsV2Command({ Bucket: Bucket(), Prefix: prefix, MaxKeys: 3, ContinuationToken }));
      pages.push((page.Contents ?? []).map((object) => object.Key!.slice(prefix.length)));
      expect(page.KeyCount).toBe(pages.at(-1)!.length);
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    expect(pages).toEqual([['a', 'b', 'c'], ['d', 'e', 'sub/f'], ['sub/g']]);
    const grouped = await admin.send(new ListObjectsV2Command({ Bucket: Bucket(), Prefix: prefix, Delimiter: '/' }));
    expect((grouped.Contents ?? []).map((object) => object.Key!.slice(prefix.length))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(grouped.CommonPrefixes).toEqual([{ Prefix: `${prefix}sub/` }]);
    expect(grouped.Contents![0]).toMatchObject({ Size: 1, StorageClass: 'STANDARD', ETag: expect.stringMatching(/^"[0-9a-f]{32}"$/) });
  });
});

describe('multipart uploads', () => {
  const part1 = randomBytes(5 * MiB);
  const part2 = randomBytes(1234);

  async function start(Key: string): Promise<string> {
    const { UploadId } = await admin.send(new CreateMultipartUploadCommand({ Bucket: Bucket(), Key, ContentType: 'application/pdf' }));
    return UploadId!;
  }
  const partUrl = (Key: string, UploadId: string, PartNumber: number) =>
    presign(new UploadPartCommand({ Bucket: Bucket(), Key, UploadId, PartNumber }));

  it('take parts PUT to presigned URLs in any order, list them (ListParts), complete, and notify ObjectCreated:CompleteMultipartUpload', async () => {
    const Key = key('two parts.pdf');
    const UploadId = await start(Key);
    expect((await fetch(await partUrl(Key, UploadId, 2), { method: 'PUT', body: part2 })).status).toBe(200);
    expect((await fetch(await partUrl(Key, UploadId, 1), { method: 'PUT', body: part1 })).status).toBe(200);

    const listed = await admin.send(new ListPartsCommand({ Bucket: Bucket(), Key, UploadId }));
    expect(listed.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([
      [1, part1.length],
      [2, part2.length],
    ]);
    expect(listed.Parts?.[0]?.ETag).toBe(`"${createHash('md5').update(part1).digest('hex')}"`);
    const paged = await admin.send(new ListPartsCommand({ Bucket: Bucket(), Key, UploadId, MaxParts: 1 }));
    expect([paged.IsTruncated, paged.NextPartNumberMarker, paged.Parts?.length]).toEqual([true, '1', 1]);

    events.length = 0;
    await admin.send(
      new CompleteMultipartUploadCommand({
        Bucket: Bucket(),
        Key,
        UploadId,
        MultipartUpload: { Parts: listed.Parts!.map(({ PartNumber, ETag }) => ({ PartNumber, ETag })) },
      }),
    );
    const object = await admin.send(new GetObjectCommand({ Bucket: Bucket(), Key }));
    expect(object.ContentType).toBe('application/pdf');
    expect(Buffer.from(await object.Body!.transformToByteArray()).equals(Buffer.concat([part1, part2]))).toBe(true);
    expect(events.map((e) => e.Records[0]!)).toEqual([
      expect.objectContaining({
        eventSource: 'aws:s3',
        eventName: 'ObjectCreated:CompleteMultipartUpload',
        s3: expect.objectContaining({
          bucket: expect.objectContaining({ name: Bucket(), arn: `arn:aws:s3:::${Bucket()}` }),
          object: expect.objectContaining({ key: Key.replace(' ', '+'), size: part1.length + part2.length }),
        }),
      }),
    ]);
    // Completed: the upload is gone, and a repeat is NoSuchUpload.
    await expect(admin.send(new ListPartsCommand({ Bucket: Bucket(), Key, UploadId }))).rejects.toMatchObject({ name: 'NoSuchUpload' });
  });

  it('are aborted (AbortMultipartUpload): the parts are gone, and later parts or a complete are NoSuchUpload', async () => {
    const Key = key('aborted.bin');
    const UploadId = await start(Key);
    const url = await partUrl(Key, UploadId, 1);
    expect((await fetch(url, { method: 'PUT', body: part2 })).status).toBe(200);
    await admin.send(new AbortMultipartUploadCommand({ Bucket: Bucket(), Key, UploadId }));
    await expect(admin.send(new ListPartsCommand({ Bucket: Bucket(), Key, UploadId }))).rejects.toMatchObject({ name: 'NoSuchUpload' });
    const late = await fetch(url, { method: 'PUT', body: part2 });
    expect(late.status).toBe(404);
    expect(await errorCode(late)).toBe('NoSuchUpload');
    await expect(
      admin.send(
        new CompleteMultipartUploadCommand({ Bucket: Bucket(), Key, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: 'x' }] } }),
      ),
    ).rejects.toMatchObject({ name: 'NoSuchUpload' });
    await expect(admin.send(new AbortMultipartUploadCommand({ Bucket: Bucket(), Key, UploadId }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
    expect((await fetch(await presign(new GetObjectCommand({ Bucket: Bucket(), Key })))).status).toBe(404);
  });

  it('refuse a complete naming a part that is missing, a wrong ETag, or a small part before the last, and stay open', async () => {
    const Key = key('checked.bin');
    const UploadId = await start(Key);
    expect((await fetch(await partUrl(Key, UploadId, 1), { method: 'PUT', body: part2 })).status).toBe(200);
    expect((await fetch(await partUrl(Key, UploadId, 2), { method: 'PUT', body: part2 })).status).toBe(200);
    const etag = `"${createHash('md5').update(part2).digest('hex')}"`;
    const complete = (Parts: { PartNumber: number; ETag: string }[]) =>
      admin.send(new CompleteMultipartUploadCommand({ Bucket: Bucket(), Key, UploadId, MultipartUpload: { Parts } }));
    await expect(complete([{ PartNumber: 3, ETag: etag }])).rejects.toMatchObject({ name: 'InvalidPart' });
    await expect(complete([{ PartNumber: 1, ETag: '"0123"' }])).rejects.toMatchObject({ name: 'InvalidPart' });
    await expect(
      complete([
        { PartNumber: 1, ETag: etag },
        { PartNumber: 2, ETag: etag },
      ]),
    ).rejects.toMatchObject({ name: 'EntityTooSmall' });
    expect((await admin.send(new ListPartsCommand({ Bucket: Bucket(), Key, UploadId }))).Parts).toHaveLength(2);
  });

  it('complete once when two completes race: one makes the object, the other finds no upload', async () => {
    const Key = key('raced.bin');
    const UploadId = await start(Key);
    const put = await fetch(await partUrl(Key, UploadId, 1), { method: 'PUT', body: part2 });
    const Parts = [{ PartNumber: 1, ETag: put.headers.get('etag')! }];
    events.length = 0;
    const outcomes = await Promise.allSettled(
      [1, 2].map(() => admin.send(new CompleteMultipartUploadCommand({ Bucket: Bucket(), Key, UploadId, MultipartUpload: { Parts } }))),
    );
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(events).toHaveLength(1);
  });

  it('list all their parts while a complete runs, and none once it is done (NoSuchUpload): never some of them', async () => {
    for (let round = 0; round < 3; round++) {
      const Key = key(`listed-while-completing-${round}.bin`);
      const UploadId = await start(Key);
      // Many parts, so that removing them takes a while; the complete keeps the first (S3 drops the others).
      const puts = await Promise.all(
        Array.from({ length: 30 }, async (_, index) => fetch(await partUrl(Key, UploadId, index + 1), { method: 'PUT', body: part2 })),
      );
      const completing = admin.send(
        new CompleteMultipartUploadCommand({
          Bucket: Bucket(),
          Key,
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: puts[0]!.headers.get('etag')! }] },
        }),
      );
      const listed: number[] = [];
      for (;;) {
        const answer = await admin.send(new ListPartsCommand({ Bucket: Bucket(), Key, UploadId })).catch((error: unknown) => error);
        if (answer instanceof Error) {
          expect(answer.name).toBe('NoSuchUpload');
          break;
        }
        listed.push((answer as { Parts?: unknown[] }).Parts?.length ?? 0);
      }
      await completing;
      expect(listed.filter((count) => count !== 30)).toEqual([]);
    }
  });

  it('are listed (ListMultipartUploads) under a prefix, by key then upload id, a page at a time; aborted or completed ones no more', async () => {
    const prefix = key('listed/');
    const keys = ['b', 'a', 'c'].map((name) => `${prefix}${name}`);
    const ids = await Promise.all(keys.map((Key) => start(Key)));
    const second = await start(keys[0]!); // two uploads of one key
    await start(key('elsewhere')); // another prefix
    const pages: { Key?: string; UploadId?: string }[][] = [];
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page = await admin.send(new ListMultipartUploadsCommand({ Bucket: Bucket(), Prefix: prefix, MaxUploads: 2, ...markers }));
      pages.push((page.Uploads ?? []).map(({ Key, UploadId }) => ({ Key, UploadId })));
      if (!page.IsTruncated) break;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
    const expected = [
      { Key: keys[1], UploadId: ids[1] },
      ...[ids[0]!, second].sort().map((UploadId) => ({ Key: keys[0], UploadId })),
      { Key: keys[2], UploadId: ids[2] },
    ];
    expect(pages.map((page) => page.length)).toEqual([2, 2]);
    expect(pages.flat()).toEqual(expected);
    await admin.send(new AbortMultipartUploadCommand({ Bucket: Bucket(), Key: keys[1], UploadId: ids[1] }));
    const after = await admin.send(new ListMultipartUploadsCommand({ Bucket: Bucket(), Prefix: prefix }));
    expect((after.Uploads ?? []).map((upload) => upload.UploadId)).toEqual(expected.slice(1).map((upload) => upload.UploadId));
  });
});

describe('writes', () => {
  it('are whole or nothing: a PUT cut off halfway leaves no object, no half object and no temporary file', async () => {
    const Key = key('cut-off.bin');
    const url = new URL(await presign(new PutObjectCommand({ Bucket: Bucket(), Key })));
    await new Promise<void>((resolve) => {
      const req = request(url, { method: 'PUT', headers: { 'content-length': String(4 * MiB) } });
      req.on('error', () => resolve());
      req.write(randomBytes(MiB), () => setTimeout(() => req.destroy(), 100));
    });
    // The emulator notices the cut connection and gives the write up.
    for (let i = 0; i < 50 && (await readdir(join(dataDir, 'objects'), { recursive: true })).some((f) => f.endsWith('.tmp')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await fetch(await presign(new GetObjectCommand({ Bucket: Bucket(), Key })))).status).toBe(404);
    expect((await readdir(join(dataDir, 'objects'), { recursive: true })).filter((f) => f.includes('cut-off'))).toEqual([]);
  });
});

describe('notifications', () => {
  it('notify ObjectCreated:Put for a presigned PUT, with the key URL-encoded and the size', async () => {
    const Key = key('a b+c.txt');
    events.length = 0;
    await fetch(await presign(new PutObjectCommand({ Bucket: Bucket(), Key })), { method: 'PUT', body: 'hello' });
    expect(events).toHaveLength(1);
    const record = events[0]!.Records[0]!;
    expect(record.eventName).toBe('ObjectCreated:Put');
    expect(record.s3.object.size).toBe(5);
    expect(decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '))).toBe(Key);
  });
});

describe('each function holds only the S3 actions its route declares', () => {
  const planted: Route = {
    name: 'PlantedFileReader',
    method: 'GET',
    path: '/planted/{id}',
    handler: 'fallback',
    dynamodb: [],
    s3: ['s3:GetObject'],
  };
  let Key: string;
  beforeAll(async () => {
    (routes as Route[]).push(planted);
    Key = key('held.txt');
    await admin.send(new PutObjectCommand({ Bucket: Bucket(), Key, Body: 'held' }));
    await admin.send(new PutObjectCommand({ Bucket: Bucket(), Key: 'outside/held.txt', Body: 'outside' }));
    process.env.S3_ENDPOINT = local.endpoint;
    process.env.AWS_REGION ||= local.region;
    process.env.AWS_ACCESS_KEY_ID = 'local';
    process.env.AWS_SECRET_ACCESS_KEY = 'local';
    signAsServedFunction(s3(), local.credentialsOf);
  });
  afterAll(() => {
    (routes as Route[]).splice((routes as Route[]).indexOf(planted), 1);
  });

  it('a declared action works, requests and presigned URLs alike, on keys under the file prefix', async () => {
    const read = await runAsFunction(planted, () => s3().send(new GetObjectCommand({ Bucket: Bucket(), Key })));
    expect(await read.Body!.transformToString()).toBe('held');
    const url = await runAsFunction(planted, () => presignedUrl(new GetObjectCommand({ Bucket: Bucket(), Key }), 60));
    expect(url).toContain('LOCALFNPlantedFileReader');
    expect(await (await fetch(url)).text()).toBe('held');
  });

  it('an undeclared action, or a key outside the prefix, is AccessDenied; a URL it signs is refused by the bucket with 403', async () => {
    await expect(
      runAsFunction(planted, () => s3().send(new PutObjectCommand({ Bucket: Bucket(), Key, Body: 'overwritten' }))),
    ).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    await expect(
      runAsFunction(planted, () => s3().send(new GetObjectCommand({ Bucket: Bucket(), Key: 'outside/held.txt' }))),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
    const url = await runAsFunction(planted, () => presignedUrl(new PutObjectCommand({ Bucket: Bucket(), Key }), 60));
    const res = await fetch(url, { method: 'PUT', body: 'overwritten' });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('is not authorized to perform: s3:PutObject');
    const kept = await admin.send(new GetObjectCommand({ Bucket: Bucket(), Key }));
    expect(await kept.Body!.transformToString()).toBe('held');
  });

  it('DeleteObjects is authorized key by key: a key it may not delete is an error entry and stays', async () => {
    const inside = key('deleted.txt');
    await admin.send(new PutObjectCommand({ Bucket: Bucket(), Key: inside, Body: 'x' }));
    const Delete = { Objects: [{ Key: inside }, { Key: 'outside/held.txt' }] };
    const denied = await runAsFunction(planted, () => s3().send(new DeleteObjectsCommand({ Bucket: Bucket(), Delete })));
    expect(denied.Errors?.map((e) => [e.Key, e.Code])).toEqual([
      [inside, 'AccessDenied'],
      ['outside/held.txt', 'AccessDenied'],
    ]);
    (planted as { s3: Route['s3'] }).s3 = ['s3:GetObject', 's3:DeleteObject'];
    try {
      const result = await runAsFunction(planted, () => s3().send(new DeleteObjectsCommand({ Bucket: Bucket(), Delete })));
      expect(result.Deleted?.map((d) => d.Key)).toEqual([inside]);
      expect(result.Errors?.map((e) => [e.Key, e.Code])).toEqual([['outside/held.txt', 'AccessDenied']]);
    } finally {
      (planted as { s3: Route['s3'] }).s3 = ['s3:GetObject'];
    }
    await expect(admin.send(new GetObjectCommand({ Bucket: Bucket(), Key: inside }))).rejects.toMatchObject({ name: 'NoSuchKey' });
    expect(await (await admin.send(new GetObjectCommand({ Bucket: Bucket(), Key: 'outside/held.txt' }))).Body!.transformToString()).toBe(
      'outside',
    );
  });

  it('lists uploads in progress only when it declares s3:ListBucketMultipartUploads, and only under the file prefix', async () => {
    const list = (Prefix: string) => runAsFunction(planted, () => s3().send(new ListMultipartUploadsCommand({ Bucket: Bucket(), Prefix })));
    await expect(list(fileKeyPrefix)).rejects.toMatchObject({ name: 'AccessDenied' });
    (planted as { s3: Route['s3'] }).s3 = ['s3:GetObject', 's3:ListBucketMultipartUploads'];
    try {
      await expect(list(fileKeyPrefix)).resolves.toMatchObject({ $metadata: { httpStatusCode: 200 } });
      await expect(list('outside/')).rejects.toMatchObject({ name: 'AccessDenied' });
    } finally {
      (planted as { s3: Route['s3'] }).s3 = ['s3:GetObject'];
    }
  });

  it('declaring the action is what grants it (read afresh), and a function with no S3 actions, or no function, gets nothing', async () => {
    (planted as { s3: Route['s3'] }).s3 = ['s3:GetObject', 's3:PutObject'];
    await runAsFunction(planted, () => s3().send(new PutObjectCommand({ Bucket: Bucket(), Key, Body: 'rewritten' })));
    (planted as { s3: Route['s3'] }).s3 = ['s3:GetObject'];
    const fallback = { name: 'Fallback', dynamodb: [] };
    await expect(runAsFunction(fallback, () => s3().send(new GetObjectCommand({ Bucket: Bucket(), Key })))).rejects.toMatchObject({
      name: 'AccessDenied',
    });
    // Outside any function the handlers' client has only the environment's credentials, which the bucket does not know.
    await expect(s3().send(new GetObjectCommand({ Bucket: Bucket(), Key }))).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
  });
});

describe('a GET or HEAD of a missing key', () => {
  // Its own emulator, whose functions hold what `grantsOf` says (S3 API reference, GetObject and HeadObject:
  // 404 only with s3:ListBucket, else 403).
  const grants: Record<string, readonly S3Grant[]> = {
    Reader: ['s3:GetObject'],
    PrefixLister: ['s3:GetObject', 's3:ListBucket'],
    BucketLister: ['s3:GetObject', LIST_WHOLE_BUCKET],
  };
  let strict: LocalS3;
  let strictDir: string;
  const present = `${fileKeyPrefix}present.txt`;
  const missing = `${fileKeyPrefix}missing.txt`;
  const as = (name: string) =>
    new S3Client({
      endpoint: strict.endpoint,
      forcePathStyle: true,
      region: strict.region,
      credentials: name === 'root' ? strict.credentials : strict.credentialsOf(name),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 1,
    });
  /** The status of a GET and a HEAD of `Key` as `name` signs them, and of a GET through a URL it presigned. */
  const statuses = async (name: string, Key: string) => {
    const client = as(name);
    const status = (promise: Promise<{ $metadata: { httpStatusCode?: number } }>) =>
      promise.then(
        (answer) => answer.$metadata.httpStatusCode,
        (error: { $metadata?: { httpStatusCode?: number } }) => error.$metadata?.httpStatusCode,
      );
    try {
      const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: strict.bucket, Key }), { expiresIn: 60 });
      const presigned = await fetch(url);
      return {
        get: await status(client.send(new GetObjectCommand({ Bucket: strict.bucket, Key }))),
        head: await status(client.send(new HeadObjectCommand({ Bucket: strict.bucket, Key }))),
        presigned: `${presigned.status} ${await errorCode(presigned)}`,
      };
    } finally {
      client.destroy();
    }
  };
  beforeAll(async () => {
    strictDir = await mkdtemp(join(tmpdir(), 'local-s3-missing-'));
    strict = await startLocalS3({ dataDir: strictDir, port: 0, grantsOf: (name) => grants[name] });
    const root = as('root');
    await root.send(new PutObjectCommand({ Bucket: strict.bucket, Key: present, Body: 'here' }));
    root.destroy();
  });
  afterAll(async () => {
    await strict?.stop();
    await rm(strictDir, { recursive: true, force: true });
  });

  it('is 403 AccessDenied to a caller without s3:ListBucket, requests and presigned URLs alike; a key that is there is 200', async () => {
    expect(await statuses('Reader', missing)).toEqual({ get: 403, head: 403, presigned: '403 AccessDenied' });
    expect(await statuses('Reader', present)).toEqual({ get: 200, head: 200, presigned: '200 undefined' });
  });

  it('is 403 too with s3:ListBucket conditioned on s3:prefix, as the stack grants it: a GET carries no prefix', async () => {
    expect(await statuses('PrefixLister', missing)).toEqual({ get: 403, head: 403, presigned: '403 AccessDenied' });
  });

  it('is 404 with s3:ListBucket on the whole bucket, and to the root key', async () => {
    expect(await statuses('BucketLister', missing)).toEqual({ get: 404, head: 404, presigned: '404 NoSuchKey' });
    expect(await statuses('root', missing)).toEqual({ get: 404, head: 404, presigned: '404 NoSuchKey' });
  });
});

describe('a function’s temporary credentials', () => {
  // Its own emulator, with sessions of a second: a URL dies with them whatever X-Amz-Expires says.
  let brief: LocalS3;
  let briefDir: string;
  const Key = `${fileKeyPrefix}session.txt`;
  const as = (credentials: LocalS3['credentials']) =>
    new S3Client({
      endpoint: brief.endpoint,
      forcePathStyle: true,
      region: brief.region,
      credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      maxAttempts: 1,
    });
  beforeAll(async () => {
    briefDir = await mkdtemp(join(tmpdir(), 'local-s3-sessions-'));
    brief = await startLocalS3({ dataDir: briefDir, port: 0, sessionSeconds: 1, grantsOf: () => ['s3:GetObject'] });
    const root = as(brief.credentials);
    await root.send(new PutObjectCommand({ Bucket: brief.bucket, Key, Body: 'kept' }));
    root.destroy();
  });
  afterAll(async () => {
    await brief?.stop();
    await rm(briefDir, { recursive: true, force: true });
  });

  it('carry a token and an expiry; once they expire, a URL they signed for an hour is refused with 400 ExpiredToken, and so is a request', async () => {
    const session = brief.credentialsOf('Reader');
    expect(session.sessionToken).toBeTruthy();
    expect(session.expiration.getTime() - Date.now()).toBeLessThanOrEqual(1_000);
    const client = as(session);
    const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: brief.bucket, Key }), { expiresIn: 3600 });
    expect(url).toContain('X-Amz-Security-Token=');
    expect(await (await fetch(url)).text()).toBe('kept');
    await new Promise((resolve) => setTimeout(resolve, session.expiration.getTime() - Date.now() + 50));
    const late = await fetch(url);
    expect(late.status).toBe(400);
    expect(await errorCode(late)).toBe('ExpiredToken');
    await expect(client.send(new GetObjectCommand({ Bucket: brief.bucket, Key }))).rejects.toMatchObject({ name: 'ExpiredToken' });
    client.destroy();
    // The function's next credentials are a new session, which works.
    const renewed = brief.credentialsOf('Reader');
    expect(renewed.sessionToken).not.toBe(session.sessionToken);
    const again = as(renewed);
    expect(await (await again.send(new GetObjectCommand({ Bucket: brief.bucket, Key }))).Body!.transformToString()).toBe('kept');
    again.destroy();
  });

  it('are renewed once less than half of them is left, and a function key without its token, or with a forged one, is refused', async () => {
    const first = brief.credentialsOf('Reader');
    expect(brief.credentialsOf('Reader')).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(brief.credentialsOf('Reader').sessionToken).not.toBe(first.sessionToken);
    const { sessionToken: _token, expiration: _expiry, ...withoutToken } = brief.credentialsOf('Reader');
    for (const [credentials, name] of [
      [withoutToken, 'InvalidAccessKeyId'],
      [{ ...withoutToken, sessionToken: `${Date.now() + 3_600_000}.forged` }, 'InvalidToken'],
    ] as const) {
      const client = as(credentials);
      await expect(client.send(new GetObjectCommand({ Bucket: brief.bucket, Key }))).rejects.toMatchObject({ name });
      client.destroy();
    }
  });
});

describe('its data', () => {
  it('stays on disk under its data dir across a restart, with the same keys', async () => {
    const Key = key('durable.txt');
    await admin.send(new PutObjectCommand({ Bucket: Bucket(), Key, Body: 'durable' }));
    const before = local.credentials;
    await local.stop();
    local = await startLocalS3({ dataDir, port: 0 });
    local.onObjectCreated((event) => events.push(event));
    admin.destroy();
    admin = clientFor(local.credentials);
    const again = await admin.send(new GetObjectCommand({ Bucket: Bucket(), Key }));
    expect(await again.Body!.transformToString()).toBe('durable');
    expect(local.credentials).toEqual(before);
  });
});
