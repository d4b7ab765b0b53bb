/**
 * Scale: a page of 50 documents from a folder of 100 and from one of 50,000, one request at a
 * time, the folders taking turns (3 rounds) so drift hits both alike; and a deep page (from a
 * token half way through the big folder), to show that paging never scans what came before.
 */
import { median, send, stats, takingTurns } from '../load';
import { f } from '../markdown';
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
      `  seeded ${BIG_FOLDER} documents in ${f(seedSeconds, 1)} s, numbered ${f((performance.now() - started) / 1000 - seedSeconds, 1)} s later`,
    );
    let token = '';
    for (let n = 0; n < BIG_FOLDER / 2 / 100; n++) {
      const path = `/folder/${fixture.bigFolderId}/documents?limit=100${token && `&nextToken=${token}`}`;
      token = (await send(target, { method: 'GET', path })).body.nextToken;
    }
    const page = (folderId: string, from = '') => ({ method: 'GET' as const, path: `/folder/${folderId}/documents?limit=50${from}` });
    const [small, big, deep] = await takingTurns(
      [page(fixture.folderId), page(fixture.bigFolderId), page(fixture.bigFolderId, `&nextToken=${token}`)].map((request) => ({
        target,
        request,
      })),
      3,
      seconds,
    );
    const scale = {
      small: { documents: 100, ...stats(small!) },
      big: { documents: BIG_FOLDER, ...stats(big!) },
      deepPage: { position: BIG_FOLDER / 2, ...stats(deep!) },
      ratio: median(big!) / median(small!),
      seedSeconds,
    };
    log(`  p50 ${scale.small.p50} ms (100) vs ${scale.big.p50} ms (50,000), deep page ${scale.deepPage.p50} ms`);
    return { scale };
  },
};
