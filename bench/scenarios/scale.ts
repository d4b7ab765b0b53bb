/**
 * Scale: a page of 50 documents from a folder of 100 and from one of 50,000, one request at a
 * time, the folders taking turns so drift hits both alike. A deep page (from a token half way
 * through the big folder) shows that paging never scans what came before.
 */
import { hammer, median, quantile, round, send } from '../load';
import { f, table } from '../markdown';
import type { Bench, Scenario } from '../run';

const BIG_FOLDER = 50_000;

interface Sampled {
  p50: number;
  p99: number;
  samples: number;
}
export interface ScaleResult {
  small: Sampled & { documents: number };
  big: Sampled & { documents: number };
  deepPage: Sampled & { position: number };
  /** big p50 / small p50. */
  ratio: number;
  seedSeconds: number;
}

export const scale: Scenario = {
  name: 'scale',
  title: 'scale: a page of 50 from 100 and from 50,000 documents',
  run: async (bench) => ({ scale: await measureScale(bench) }),
};

async function measureScale({ service, target, fixture, seconds, log }: Bench): Promise<ScaleResult> {
  const started = performance.now();
  await service.seed(BIG_FOLDER, fixture.bigFolderId);
  const seedSeconds = (performance.now() - started) / 1000;
  // Each seeded document recorded its change: the worker numbers them into the feed before anything is measured.
  await service.settled(900_000);
  log(
    `  seeded ${BIG_FOLDER} documents in ${f(seedSeconds, 1)} s, their changes numbered after ${f((performance.now() - started) / 1000 - seedSeconds, 1)} s more`,
  );

  const page = (folderId: string) => `/folder/${folderId}/documents?limit=50`;
  let token = '';
  for (let n = 0; n < BIG_FOLDER / 2 / 100; n++) {
    const path = `/folder/${fixture.bigFolderId}/documents?limit=100${token && `&nextToken=${token}`}`;
    token = (await send(target, { method: 'GET', path })).body.nextToken;
  }
  const paths = { small: page(fixture.folderId), big: page(fixture.bigFolderId), deep: `${page(fixture.bigFolderId)}&nextToken=${token}` };
  const samples = { small: [] as number[], big: [] as number[], deep: [] as number[] };
  const latencies = async (path: string, runSeconds: number) => {
    const run = await hammer(target, () => ({ method: 'GET', path }), 200, 1, runSeconds);
    if (run.errors > 0) throw new Error(`GET ${path}: ${run.errors} failed requests`);
    return run.latencies;
  };
  for (const path of Object.values(paths)) await latencies(path, 1); // warm-up
  for (let turn = 0; turn < 3; turn++) {
    for (const key of ['small', 'big', 'deep'] as const) samples[key].push(...(await latencies(paths[key], Math.max(1, seconds / 2))));
  }
  const stats = (s: number[]): Sampled => ({ p50: round(median(s), 3), p99: round(quantile(s, 0.99), 3), samples: s.length });
  const result = {
    small: { documents: 100, ...stats(samples.small) },
    big: { documents: BIG_FOLDER, ...stats(samples.big) },
    deepPage: { position: BIG_FOLDER / 2, ...stats(samples.deep) },
    ratio: median(samples.big) / median(samples.small),
    seedSeconds,
  };
  log(`  p50 ${result.small.p50} ms (100) vs ${result.big.p50} ms (50,000), deep page ${result.deepPage.p50} ms`);
  return result;
}

export const scaleSection = (s: ScaleResult) => `## 3. Scale

GET /folder/{id}/documents?limit=50, one request at a time, the folders taking turns (3 rounds), after
seeding 50,000 documents (the items the store's own createDocument writes, 25 to a BatchWriteItem:
\`bench/seed.ts\`) in ${f(s.seedSeconds, 0)} s. The deep page starts from a token half way through the big folder.

${table(
  ['Folder', 'Documents', 'p50 ms', 'p99 ms', 'requests'],
  [
    ['small', s.small.documents, f(s.small.p50), f(s.small.p99), s.small.samples],
    ['big, first page', s.big.documents, f(s.big.p50), f(s.big.p99), s.big.samples],
    [`big, page at ${s.deepPage.position}`, s.big.documents, f(s.deepPage.p50), f(s.deepPage.p99), s.deepPage.samples],
  ],
)}

Ratio big / small (p50): **${f(s.ratio)}**. A page is one Query from the token's position, whatever the
folder's size. A later page names its key range from that position (\`SK BETWEEN\`): DynamoDB Local
otherwise walks the prefix from its first item to the start key, which made a page half way through
50,000 documents about 3× slower than the first (\`functions/core/db/queries.ts\`).
`;
