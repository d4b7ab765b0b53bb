/**
 * Files: a file of BENCH_FILE_MIB MiB (default 1,024; generated as it is sent, never held in
 * memory) through the service's flow — POST /uploads, its parts BENCH_FILE_PARALLEL at a time
 * (default 6) to the presigned URLs (lib/files-client, what `npm run upload` runs), complete until
 * the Document — against the same bytes sent straight to the same S3 emulator as a multipart
 * upload with its root credentials (@aws-sdk/client-s3), the same part size and parallelism.
 * Then the download through GET /document/{id}/content's redirect against a GetObject of the
 * same object. After a warm-up upload, BENCH_FILE_RUNS rounds (default 3), the sides taking
 * turns first; MB/s are 10^6 bytes a second, medians side by side. The service process's RSS
 * (it runs the emulator too) is sampled every 100 ms during each upload: its peak growth over
 * the value just before.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createFilesApi, expectData, type FilesApi } from '#lib/files-client/api';
import type { Upload } from '#lib/files-client/paths';
import { completeUpload, type PartSource, partLength, sendParts } from '#lib/files-client/upload';
import { median, round, sleep } from '../load';
import { f } from '../markdown';
import type { FilesResult } from '../results';
import type { Bench, Scenario } from '../scenario';

const MiB = 1024 * 1024;
const quiet = { write: () => true };

/** The bench's file: 1 MiB of random bytes repeated, each MiB stamped with its index so no two are alike. */
const block = randomBytes(MiB);
function* chunksOf(start: number, length: number): Generator<Buffer> {
  for (let at = start; at < start + length; ) {
    const index = Math.floor(at / MiB);
    const chunk = Buffer.from(block); // a fresh copy: the socket may still hold the last one
    chunk.writeDoubleBE(index, 0);
    const end = Math.min((index + 1) * MiB, start + length);
    yield chunk.subarray(at - index * MiB, end - index * MiB);
    at = end;
  }
}
const generated: PartSource = (start, length) => Readable.from(chunksOf(start, length), { objectMode: false });

function sha256Of(size: number): string {
  const hash = createHash('sha256');
  for (const chunk of chunksOf(0, size)) hash.update(chunk);
  return hash.digest('hex');
}

/** `work`'s result, and the service process's peak RSS growth while it ran, in MB (10^6 bytes). */
async function rssGrowth<T>(bench: Bench, work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = await bench.service.rss();
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await bench.service.rss());
      await sleep(100);
    }
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    sampling = false;
    await sampler;
  }
  return { result, growthMb: (peak - before) / 1e6 };
}

/** Seconds `work` took. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** The service's flow, as `npm run upload` does it: the Document's id and the upload (its part size). */
async function uploadThroughService(api: FilesApi, folderId: string, size: number, sha256: string, parallel: number) {
  const body = { folderId, name: `bench-${Date.now()}-${randomBytes(3).toString('hex')}.bin`, size, sha256 };
  const upload: Upload = { ...expectData('POST /uploads', await api.POST('/uploads', { body })), received: [] };
  await sendParts(api, upload, generated, { parallel, output: quiet });
  let documentId = '';
  const completeSeconds = await timed(async () => {
    documentId = (await completeUpload(api, upload, () => sendParts(api, upload, generated, { parallel, output: quiet }))).id;
  });
  return { documentId, upload, completeSeconds };
}

/** The same bytes straight to the emulator: a multipart upload with the same part size and parallelism. */
async function uploadDirect(s3: S3Client, bucket: string, key: string, upload: Upload, parallel: number): Promise<void> {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  const etags: { PartNumber: number; ETag: string }[] = [];
  let next = 1;
  const worker = async () => {
    while (next <= upload.partCount) {
      const number = next++;
      const length = partLength(upload, number);
      const body = generated(upload.partSize * (number - 1), length);
      const { ETag } = await s3.send(
        new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: number, Body: body, ContentLength: length }),
      );
      etags.push({ PartNumber: number, ETag: ETag! });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  etags.sort((a, b) => a.PartNumber - b.PartNumber);
  await s3.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: etags } }));
}

/** Reads a body to its end; the bytes it had. */
async function drain(body: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const chunk of body) bytes += chunk.length;
  return bytes;
}

/** Where GET /document/{id}/content redirects to (a presigned URL of the object). */
async function contentLocation(api: FilesApi, id: string): Promise<URL> {
  const { response } = await api.GET('/document/{id}/content', { params: { path: { id } }, redirect: 'manual', parseAs: 'stream' });
  if (response.status !== 302) throw new Error(`GET /document/${id}/content: ${response.status}, not the redirect`);
  return new URL(response.headers.get('Location')!);
}

/** GET /document/{id}/content, then the URL it redirects to: the bytes read. */
async function downloadThroughService(api: FilesApi, id: string): Promise<number> {
  const object = await fetch(await contentLocation(api, id));
  if (object.status !== 200 || !object.body) throw new Error(`the presigned URL answered ${object.status}`);
  return drain(object.body);
}

export const files: Scenario = {
  name: 'files',
  title: 'files: a large file through the upload flow and the redirect, against the S3 emulator directly',
  async run(bench) {
    const { log } = bench;
    const mib = Number(process.env.BENCH_FILE_MIB ?? 1024);
    const parallel = Number(process.env.BENCH_FILE_PARALLEL ?? 6);
    const runs = Number(process.env.BENCH_FILE_RUNS ?? 3);
    const size = mib * MiB;
    const api = createFilesApi(bench.target.url, bench.target.token);
    const bucket = await bench.service.bucket();
    const s3 = new S3Client({
      endpoint: bucket.endpoint,
      region: bucket.region,
      credentials: bucket.credentials,
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    // Warm-up, not measured: the upload functions' modules loaded, a multipart upload of two parts and its download.
    const warm = await uploadThroughService(api, bench.fixture.folderId, 9 * MiB, sha256Of(9 * MiB), parallel);
    await downloadThroughService(api, warm.documentId);
    const sha256 = sha256Of(size);
    const rounds: FilesResult['rounds'] = [];
    let partSize = 0;
    let partCount = 0;
    for (let round = 0; round < runs; round++) {
      const row = {
        upload: { service: 0, direct: 0 },
        download: { service: 0, direct: 0 },
        rssMb: { service: 0, direct: 0 },
        completeSeconds: 0,
      };
      let documentId = '';
      const sides = {
        service: async () => {
          let upload!: Upload;
          const { growthMb, result } = await rssGrowth(bench, () =>
            timed(async () => {
              ({
                documentId,
                upload,
                completeSeconds: row.completeSeconds,
              } = await uploadThroughService(api, bench.fixture.folderId, size, sha256, parallel));
            }),
          );
          [row.upload.service, row.rssMb.service, partSize, partCount] = [size / result / 1e6, growthMb, upload.partSize, upload.partCount];
        },
        direct: async () => {
          const shape = { size, partSize: partSize || 8 * MiB, partCount: Math.ceil(size / (partSize || 8 * MiB)) } as Upload;
          const key = `bench/direct-${round}`;
          const { growthMb, result } = await rssGrowth(bench, () => timed(() => uploadDirect(s3, bucket.bucket, key, shape, parallel)));
          [row.upload.direct, row.rssMb.direct] = [size / result / 1e6, growthMb];
        },
      };
      // The service first in even rounds (its part size then sets the direct side's), the other side first in odd ones.
      for (const side of round % 2 === 0 || !partSize ? (['service', 'direct'] as const) : (['direct', 'service'] as const))
        await sides[side]();
      const [, objectBucket, ...objectKey] = (await contentLocation(api, documentId)).pathname.split('/');
      const object = { Bucket: objectBucket!, Key: decodeURIComponent(objectKey.join('/')) };
      const downloads = {
        service: async () => {
          let bytes = 0;
          row.download.service = size / (await timed(async () => (bytes = await downloadThroughService(api, documentId)))) / 1e6;
          if (bytes !== size) throw new Error(`the download had ${bytes} bytes, not ${size}`);
        },
        direct: async () => {
          const read = async () => drain((await s3.send(new GetObjectCommand(object))).Body as Readable);
          row.download.direct = size / (await timed(read)) / 1e6;
        },
      };
      for (const side of round % 2 === 0 ? (['service', 'direct'] as const) : (['direct', 'service'] as const)) await downloads[side]();
      rounds.push(row);
      log(
        `  round ${round + 1}: upload ${f(row.upload.service, 0)} vs ${f(row.upload.direct, 0)} MB/s, download ${f(row.download.service, 0)} vs ${f(row.download.direct, 0)} MB/s, RSS +${f(row.rssMb.service, 0)} / +${f(row.rssMb.direct, 0)} MB`,
      );
    }
    s3.destroy();
    const med = (pick: (row: FilesResult['rounds'][number]) => number) => round(median(rounds.map(pick)), 1);
    const result: FilesResult = {
      mib,
      parallel,
      partSize,
      partCount,
      rounds,
      upload: { service: med((r) => r.upload.service), direct: med((r) => r.upload.direct), ratio: 0 },
      download: { service: med((r) => r.download.service), direct: med((r) => r.download.direct), ratio: 0 },
      completeSeconds: med((r) => r.completeSeconds),
      rssGrowthMb: { service: Math.max(...rounds.map((r) => r.rssMb.service)), direct: Math.max(...rounds.map((r) => r.rssMb.direct)) },
    };
    // Each round's ratio, measured side by side, then their median: the machine's load moves both sides of a round alike.
    result.upload.ratio = round(median(rounds.map((r) => r.upload.service / r.upload.direct)), 3);
    result.download.ratio = round(median(rounds.map((r) => r.download.service / r.download.direct)), 3);
    return { files: result };
  },
};
