/**
 * The local service starts the S3 emulator with the rest (lib/local/service.ts): the bucket is
 * made, the handlers are told where it is (BUCKET_NAME, S3_ENDPOINT, path-style), and it stops
 * with the service.
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fileKeyPrefix, s3 } from '#core/bucket';
import { fallbackRoute } from '#functions/routes';
import { runAsFunction } from '#lib/local/permissions';
import { startTestService, type TestService } from '#test/support/service';

let svc: TestService;
let stopped = false;
beforeAll(async () => {
  svc = await startTestService();
}, 60_000);
afterAll(async () => {
  if (!stopped) await svc.stop();
});

it('starts the S3 emulator with its bucket, tells the handlers where it is, and stops it with the service', async () => {
  expect(process.env.BUCKET_NAME).toBe(svc.s3.bucket);
  expect(process.env.S3_ENDPOINT).toBe(svc.s3.endpoint);
  const client = new S3Client({
    endpoint: svc.s3.endpoint,
    forcePathStyle: true,
    region: svc.s3.region,
    credentials: svc.s3.credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    maxAttempts: 1,
  });
  const Key = `${fileKeyPrefix}service/hello.txt`;
  await client.send(new PutObjectCommand({ Bucket: svc.s3.bucket, Key, Body: 'hello' }));
  expect(await (await client.send(new GetObjectCommand({ Bucket: svc.s3.bucket, Key }))).Body!.transformToString()).toBe('hello');
  expect((await fetch(`${svc.s3.endpoint}/${svc.s3.bucket}/${Key}`)).status).toBe(403);

  await svc.stop();
  stopped = true;
  await expect(fetch(`${svc.s3.endpoint}/${svc.s3.bucket}/${Key}`)).rejects.toThrow();
  client.destroy();
});

it('starts afresh in the same process: the handlers’ S3 client follows the new emulator and still signs as the function served', async () => {
  const again = await startTestService();
  try {
    expect(process.env.S3_ENDPOINT).toBe(again.s3.endpoint);
    expect(s3().config.endpoint).toBeDefined();
    const endpoint = await s3().config.endpoint!();
    expect(`${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`).toBe(again.s3.endpoint);
    const Key = `${fileKeyPrefix}service/again.txt`;
    // The fallback function declares no S3 action: the new emulator knows its key and refuses it.
    await expect(
      runAsFunction(fallbackRoute, () => s3().send(new GetObjectCommand({ Bucket: again.s3.bucket, Key }))),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
  } finally {
    await again.stop();
  }
});
