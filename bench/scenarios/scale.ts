/**
 * Scenario 3: a page of 50 documents from a folder of 100 and from a folder of 50,000 (seeded
 * straight into the table), one request at a time, the two folders alternating so drift hits
 * both alike. A deep page (from a token half way through the big folder) shows that paging
 * never scans what came before.
 */

import { CONTENT_BYTES, type Fixture } from '../fixture';
import { hammer } from '../hammer';
import type { ServiceClient } from '../run';
import { median, quantile, round } from '../stats';

export const BIG_FOLDER = 50_000;

export interface ScaleResult {
  small: { documents: number; p50: number; p99: number; samples: number };
  big: { documents: number; p50: number; p99: number; samples: number };
  deepPage: { position: number; p50: number; p99: number; samples: number };
  /** big p50 / small p50. */
  ratio: number;
  seedSeconds: number;
}

async function latencies(url: string, token: string, path: string, seconds: number): Promise<number[]> {
  const result = await hammer({ url: url + path, connections: 1, duration: seconds, headers: { authorization: `Bearer ${token}` } }, 200);
  if (result.errors > 0) throw new Error(`GET ${path}: ${result.errors} failed requests`);
  return result.latencies;
}

export async function measureScale(
  service: ServiceClient,
  fixture: Fixture,
  seconds: number,
  progress: (line: string) => void,
): Promise<ScaleResult> {
  const { api } = fixture;
  const big = await api.call('POST', '/folder', { parentId: fixture.rootFolderId, name: 'Big' });
  const started = performance.now();
  await service.seed(
    {
      userId: fixture.userId,
      repositoryId: fixture.repositoryId,
      folderId: big.body.id,
      count: BIG_FOLDER,
      prefix: 'doc-',
      contentBytes: CONTENT_BYTES,
    },
    false,
  );
  const seedSeconds = (performance.now() - started) / 1000;
  progress(`  seeded ${BIG_FOLDER} documents in ${seedSeconds.toFixed(1)} s`);

  // A token half way: walk the big folder a page of 100 at a time.
  let token: string | undefined;
  for (let page = 0; page < BIG_FOLDER / 2 / 100; page++) {
    const response = await api.call('GET', `/folder/${big.body.id}/documents?limit=100${token ? `&nextToken=${token}` : ''}`);
    token = response.body.nextToken;
  }
  const smallPath = `/folder/${fixture.folderId}/documents?limit=50`;
  const bigPath = `/folder/${big.body.id}/documents?limit=50`;
  const deepPath = `${bigPath}&nextToken=${encodeURIComponent(token!)}`;
  const samples = { small: [] as number[], big: [] as number[], deep: [] as number[] };
  for (const path of [smallPath, bigPath, deepPath]) await latencies(api.url, api.token, path, 1); // warm-up
  for (let round = 0; round < 3; round++) {
    samples.small.push(...(await latencies(api.url, api.token, smallPath, seconds)));
    samples.big.push(...(await latencies(api.url, api.token, bigPath, seconds)));
    samples.deep.push(...(await latencies(api.url, api.token, deepPath, seconds)));
  }
  const stats = (s: number[]) => ({ p50: round(median(s), 3), p99: round(quantile(s, 0.99), 3), samples: s.length });
  return {
    small: { documents: 100, ...stats(samples.small) },
    big: { documents: BIG_FOLDER, ...stats(samples.big) },
    deepPage: { position: BIG_FOLDER / 2, ...stats(samples.deep) },
    ratio: median(samples.big) / median(samples.small),
    seedSeconds,
  };
}
