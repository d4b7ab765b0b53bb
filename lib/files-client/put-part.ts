/**
 * One part of an upload: a plain HTTP PUT of exactly its bytes to its presigned URL (API.md
 * section 12), streamed from its source with a Content-Length, so no part is ever held in memory.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { PartRefused } from './protocol';

/** Kept-alive connections to the bucket, as many as parts in flight. */
export function bucketAgents(parallel: number) {
  return {
    http: new HttpAgent({ keepAlive: true, maxSockets: parallel }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: parallel }),
  };
}
export type BucketAgents = ReturnType<typeof bucketAgents>;

export { isExpiredUrl, PartRefused } from './protocol';

/**
 * PUTs `length` bytes read from `body()` to `url`; `onBytes` hears of each chunk as it goes out.
 * Resolves when the bucket has answered 2xx; rejects with PartRefused or a network error.
 */
export function putPart(
  url: string,
  length: number,
  body: () => Readable,
  options: { agents?: BucketAgents; onBytes?: (n: number) => void } = {},
): Promise<void> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  const agent = secure ? options.agents?.https : options.agents?.http;
  return new Promise((resolve, reject) => {
    const request = send(
      target,
      { method: 'PUT', headers: { 'Content-Length': String(length) }, ...(agent ? { agent } : {}) },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) return resolve();
          const text = Buffer.concat(chunks).toString('utf8');
          const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? '';
          reject(new PartRefused(status, code, /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? ''));
        });
      },
    );
    request.on('error', reject);
    // A connection that moves nothing for a minute is dead: the part is tried again.
    request.setTimeout(60_000, () => request.destroy(new Error('no answer from the bucket for 60 s')));
    if (length === 0) {
      request.end();
      return;
    }
    const source = body();
    source.on('error', (error) => request.destroy(error));
    if (options.onBytes) source.on('data', (chunk: Buffer) => options.onBytes!(chunk.length));
    source.pipe(request);
  });
}
