/**
 * Files: a file of BENCH_FILE_MIB MiB (default 1,024; generated as it is sent, never held in
 * memory) through the service's flow — POST /uploads, its parts BENCH_FILE_PARALLEL at a time
 * (default 6) to the presigned URLs (lib/files-client, what `npm run upload` runs), complete until
 * the Document — against the same bytes sent straight to the same S3 emulator as a multipart
 * upload with its root credentials, the same part size and parallelism. Then the download
 * through GET /document/{id}/content's redirect against a GetObject of the same object. After a
 * warm-up, BENCH_FILE_RUNS rounds (default 3), the sides taking turns first; MB/s are 10^6 bytes
 * a second, medians side by side. The service process's RSS (it runs the emulator too) is
 * sampled every 100 ms during each upload: its peak growth over the value just before.
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
const sha256Of = (size: number) => [...chunksOf(0, size)].reduce((hash, chunk) => hash.update(chunk), createHash('sha256')).digest('hex');

/** Seconds `work` took. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** Seconds `work` took, and the service process's peak RSS growth meanwhile, in MB (10^6 bytes). */
async function measured(bench: Bench, work: () => Promise<unknown>): Promise<{ seconds: number; rssMb: number }> {
  const before = await bench.service.rss();
  let [peak, sampling] = [before, true];
  const sampler = (async () => {
    for (; sampling; await sleep(100)) peak = Math.max(peak, await bench.service.rss());
  })();
  const seconds = await timed(work).finally(() => (sampling = false));
  await sampler;
  return { seconds, rssMb: (peak - before) / 1e6 };
}

/** The service's flow, as `npm run upload` does it: the Document's id, the upload (its part size), the complete's seconds. */
async function uploadThroughService(api: FilesApi, folderId: string, size: number, sha256: string, parallel: number) {
  const body = { folderId, name: `bench-${Date.now()}-${randomBytes(3).toString('hex')}.bin`, size, sha256 };
  const upload: Upload = { ...expectData('POST /uploads', await api.POST('/uploads', { body })), received: [] };
  const send = () => sendParts(api, upload, generated, { parallel, output: { write: () => true } });
  await send();
  let documentId = '';
  const completeSeconds = await timed(async () => (documentId = (await completeUpload(api, upload, send)).id));
  return { documentId, upload, completeSeconds };
}

/** The same bytes straight to the emulator: a multipart upload with the same part size and parallelism. */
async function uploadDirect(s3: S3Client, Bucket: string, Key: string, upload: Upload, parallel: number): Promise<void> {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
  const parts: { PartNumber: number; ETag: string }[] = [];
  let next = 1;
  const worker = async () => {
    for (let PartNumber = next++; PartNumber <= upload.partCount; PartNumber = next++) {
      const length = partLength(upload, PartNumber);
      const Body = generated(upload.partSize * (PartNumber - 1), length);
      const { ETag } = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body, ContentLength: length }));
      parts.push({ PartNumber, ETag: ETag! });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  parts.sort((a, b) => a.PartNumber - b.PartNumber);
  await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }));
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
    const mib = Number(process.env.BENCH_FILE_MIB ?? 1024);
    const parallel = Number(process.env.BENCH_FILE_PARALLEL ?? 6);
    const runs = Number(process.env.BENCH_FILE_RUNS ?? 3);
    const size = mib * MiB;
    const api = createFilesApi(bench.target.url, bench.target.token);
    const { endpoint, region, credentials, bucket } = await bench.service.bucket();
    const checksums = { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } as const;
    const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true, ...checksums });
    // Warm-up, not measured: the upload functions' modules loaded, a multipart upload of two parts and its download.
    const warm = await uploadThroughService(api, bench.fixture.folderId, 9 * MiB, sha256Of(9 * MiB), parallel);
    await downloadThroughService(api, warm.documentId);
    const sha256 = sha256Of(size);
    const rounds: FilesResult['rounds'] = [];
    let upload: Upload | undefined;
    for (let round = 0; round < runs; round++) {
      const row = {
        upload: { service: 0, direct: 0 },
        download: { service: 0, direct: 0 },
        rssMb: { service: 0, direct: 0 },
        completeSeconds: 0,
      };
      let documentId = '';
      const uploads = {
        service: async () => {
          const through = await measured(bench, async () => {
            ({
              documentId,
              upload,
              completeSeconds: row.completeSeconds,
            } = await uploadThroughService(api, bench.fixture.folderId, size, sha256, parallel));
          });
          [row.upload.service, row.rssMb.service] = [size / through.seconds / 1e6, through.rssMb];
        },
        direct: async () => {
          const direct = await measured(bench, () => uploadDirect(s3, bucket, `bench/direct-${round}`, upload!, parallel));
          [row.upload.direct, row.rssMb.direct] = [size / direct.seconds / 1e6, direct.rssMb];
        },
      };
      // The service first in even rounds (its upload's part size then sets the direct side's), the other side first in odd ones.
      const order = round % 2 === 0 || !upload ? (['service', 'direct'] as const) : (['direct', 'service'] as const);
      for (const side of order) await uploads[side]();
      const [, Bucket, ...key] = (await contentLocation(api, documentId)).pathname.split('/');
      const object = { Bucket, Key: decodeURIComponent(key.join('/')) };
      const downloads = {
        service: async () => {
          const bytes = await downloadThroughService(api, documentId);
          if (bytes !== size) throw new Error(`the download had ${bytes} bytes, not ${size}`);
        },
        direct: async () => drain((await s3.send(new GetObjectCommand(object))).Body as Readable),
      };
      for (const side of order) row.download[side] = size / (await timed(downloads[side])) / 1e6;
      rounds.push(row);
      const [up, down, rss] = [row.upload, row.download, row.rssMb];
      bench.log(
        `  round ${round + 1}: upload ${f(up.service, 0)} vs ${f(up.direct, 0)} MB/s, download ${f(down.service, 0)} vs ${f(down.direct, 0)} MB/s, RSS +${f(rss.service, 0)} / +${f(rss.direct, 0)} MB`,
      );
    }
    s3.destroy();
    const med = (pick: (row: FilesResult['rounds'][number]) => number) => round(median(rounds.map(pick)), 1);
    // Each round's ratio, measured side by side, then their median: the machine's load moves both sides of a round alike.
    const ratio = (side: 'upload' | 'download') => round(median(rounds.map((r) => r[side].service / r[side].direct)), 3);
    const result: FilesResult = {
      mib,
      parallel,
      partSize: upload!.partSize,
      partCount: upload!.partCount,
      rounds,
      upload: { service: med((r) => r.upload.service), direct: med((r) => r.upload.direct), ratio: ratio('upload') },
      download: { service: med((r) => r.download.service), direct: med((r) => r.download.direct), ratio: ratio('download') },
      completeSeconds: med((r) => r.completeSeconds),
      rssGrowthMb: { service: Math.max(...rounds.map((r) => r.rssMb.service)), direct: Math.max(...rounds.map((r) => r.rssMb.direct)) },
    };
    return { files: result };
  },
};
