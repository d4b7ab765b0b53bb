/**
 * Scale: a page of 50 documents from a folder of 100 and from one of 50,000, one request at a
 * time, the folders taking turns (3 rounds) so drift hits both alike; and a deep page (from a
 * token half way through the big folder), to show that paging never scans what came before.
 */
import { latencies, median, quantile, round, send } from '../load';
import { f } from '../markdown';
import type { ScaleResult } from '../results';
import type { Scenario } from '../scenario';

const BIG_FOLDER = 50_000;

export const scale: Scenario = {
  name: 'scale',
  title: 'scale: a page of 50 from 100 and from 50,000 documents',
  async run({ service, target, fixture, seconds, log }) {
    const started = performance.now();
    await service.seed(BIG_FOLDER, fixture.bigFolderId);
    const seedSeconds = (performance.now() - started) / 1000;
    await service.settled(900_000); // each seeded document's change numbered before anything is measured
    log(
      `  seeded ${BIG_FOLDER} documents in ${f(seedSeconds, 1)} s, their changes numbered ${f((performance.now() - started) / 1000 - seedSeconds, 1)} s later`,
    );
    let token = '';
    for (let n = 0; n < BIG_FOLDER / 2 / 100; n++) {
      const path = `/folder/${fixture.bigFolderId}/documents?limit=100${token && `&nextToken=${token}`}`;
      token = (await send(target, { method: 'GET', path })).body.nextToken;
    }
    const page = (folderId: string) => `/folder/${folderId}/documents?limit=50`;
    const paths = {
      small: page(fixture.folderId),
      big: page(fixture.bigFolderId),
      deep: `${page(fixture.bigFolderId)}&nextToken=${token}`,
    };
    const samples = { small: [] as number[], big: [] as number[], deep: [] as number[] };
    for (const path of Object.values(paths)) await latencies(target, { method: 'GET', path }, 1); // warm-up
    for (let turn = 0; turn < 3; turn++) {
      for (const key of ['small', 'big', 'deep'] as const)
        samples[key].push(...(await latencies(target, { method: 'GET', path: paths[key] }, Math.max(1, seconds / 2))));
    }
    const stats = (s: number[]) => ({ p50: round(median(s), 3), p99: round(quantile(s, 0.99), 3), samples: s.length });
    const result: ScaleResult = {
      small: { documents: 100, ...stats(samples.small) },
      big: { documents: BIG_FOLDER, ...stats(samples.big) },
      deepPage: { position: BIG_FOLDER / 2, ...stats(samples.deep) },
      ratio: median(samples.big) / median(samples.small),
      seedSeconds,
    };
    log(`  p50 ${result.small.p50} ms (100) vs ${result.big.p50} ms (50,000), deep page ${result.deepPage.p50} ms`);
    return { scale: result };
  },
};
