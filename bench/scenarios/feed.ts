/**
 * The change feed under load, and what it costs:
 *
 * 1. Writes per second into one repository from 32 clients (`PUT /document` round robin over 300
 *    documents) with the feed (each write records its change, the background worker numbers them)
 *    against the same writes before it: the service at BEFORE_COMMIT (the last commit before the
 *    history data model: no feed, no revisions), out of git, in its own process on the same
 *    DynamoDB Local, the two taking turns, three rounds.
 * 2. A follower reads the feed from `latest` during every run with the feed: it must see each
 *    write once, in order per document (writes counted from the documents' versions).
 * 3. The feed's capacity per change: the requests recorded while the worker numbers a burst of
 *    writes, priced by AWS's billing rules as the capacity scenario prices an endpoint.
 */
import { join } from 'node:path';
import { hammer, median, send, sleep, sum, type Target } from '../load';
import { f } from '../markdown';
import { checkout, startServiceOf } from '../processes';
import { type Recorded, unitsOf } from '../recorder';
import type { FeedResult } from '../results';
import type { Scenario } from '../scenario';

export const BEFORE_COMMIT = 'ded926d';
const CLIENTS = 32;
const ROUNDS = 3;
const POOL = 300;
const content = (n: number) => `${n}`.padEnd(1024, '.');

/** A repository with POOL documents in its root folder. */
async function prepare(target: Target) {
  /** The answer's body; a 503 (DynamoDB Local too slow on a busy machine) is asked again, up to 5 times. */
  const must = async (request: Parameters<typeof send>[1]) => {
    for (let attempt = 1; ; attempt++) {
      const { status, body } = await send(target, request);
      if (status === 201 || status === 200) return body;
      if (status !== 503 || attempt === 5) throw new Error(`${request.method} ${request.path} answered ${status}`);
    }
  };
  const repository = await must({ method: 'POST', path: '/', body: { name: 'Feed load' } });
  const folderId = repository.rootFolderId as string;
  const documents: string[] = [];
  for (let start = 0; start < POOL; start += 16) {
    const batch = Array.from({ length: Math.min(16, POOL - start) }, (_, i) => ({
      folderId,
      name: `doc-${start + i}.txt`,
      content: content(0),
    }));
    documents.push(
      ...(await Promise.all(batch.map((body) => must({ method: 'POST', path: '/document', body })))).map((d) => d.id as string),
    );
  }
  /** Each document's version, from the folder's list. */
  const versions = async () => {
    const found = new Map<string, number>();
    let token: string | undefined;
    do {
      const body = await must({ method: 'GET', path: `/folder/${folderId}/documents?limit=100${token ? `&nextToken=${token}` : ''}` });
      for (const item of body.items) found.set(item.id, item.version);
      token = body.nextToken;
    } while (token);
    return found;
  };
  let n = 0;
  const next = () => ({ method: 'PUT' as const, path: '/document', body: { id: documents[n % POOL]!, content: content(n++) } });
  return {
    repositoryId: repository.id as string,
    documents,
    versions,
    load: async (seconds: number) => (await hammer(target, next, 200, CLIENTS, seconds)).latency,
  };
}

type Change = { type: string; id: string; version: number };

/** Reads the feed from `cursor` until `done()`, then (everything numbered) to its end. */
async function follow(target: Target, repositoryId: string, cursor: string, done: () => boolean, settled: () => Promise<void>) {
  const seen: Change[] = [];
  for (let draining = false; ; ) {
    const { status, body } = await send(target, { method: 'GET', path: `/${repositoryId}/changes?cursor=${cursor}&limit=100` });
    if (status !== 200) throw new Error(`the feed answered ${status} ${JSON.stringify(body)}`);
    seen.push(...body.items);
    cursor = body.cursor;
    if (body.items.length > 0) continue;
    if (draining) return seen;
    if (done()) {
      await settled();
      draining = true;
    } else await sleep(20);
  }
}

function count(seen: readonly Change[], before: Map<string, number>, after: Map<string, number>) {
  const last = new Map(before);
  const keys = new Set<string>();
  let [duplicates, outOfOrder] = [0, 0];
  for (const change of seen) {
    if (keys.has(`${change.id}@${change.version}`)) duplicates++;
    keys.add(`${change.id}@${change.version}`);
    if (change.type !== 'updated' || change.version !== (last.get(change.id) ?? 0) + 1) outOfOrder++;
    last.set(change.id, change.version);
  }
  return { writes: sum([...after], ([id, version]) => version - (before.get(id) ?? version)), seen: seen.length, duplicates, outOfOrder };
}

/** The worker's share of a recorded burst: numbering transactions and counter reads, per change. */
function perChange(recorded: readonly Recorded[]): FeedResult['perChange'] {
  const touches = (r: Recorded, kind: string) => r.touched.some((t) => t.kind === kind);
  const numbering = recorded.filter((r) => r.operation === 'TransactWriteItems' && touches(r, 'numbered change'));
  const writes = recorded.filter((r) => r.operation === 'TransactWriteItems' && touches(r, 'document'));
  const counterReads = recorded.filter((r) => r.operation === 'GetItem' && touches(r, 'feed counter'));
  const changes = sum(numbering, (r) => r.touched.filter((t) => t.kind === 'numbered change').length);
  const pending = sum(writes, (r) => sum(r.touched, (t) => (t.kind === 'change' ? t.units : 0)));
  return {
    changes,
    writeSide: { wru: pending / changes },
    worker: { wru: unitsOf(numbering).wru / changes, rru: unitsOf(counterReads).rru / changes, transactions: numbering.length },
  };
}

export const feed: Scenario = {
  name: 'feed',
  title: `the change feed: writes/s into one repository with it vs before it (${BEFORE_COMMIT}), a follower's count, capacity per change`,
  async run({ service, target, scratch, seconds, lambdaEnv, log }) {
    const root = await checkout(BEFORE_COMMIT, join(scratch, `service-${BEFORE_COMMIT}`));
    const options = { scratch, dynamodbEndpoint: lambdaEnv.DYNAMODB_ENDPOINT!, tableName: 'documents-before', user: 'bench-before' };
    const old = await startServiceOf(root, options);
    try {
      const before = await prepare(old.target);
      const now = await prepare(target);
      await service.settled();
      for (const side of [before, now]) await side.load(1); // warm-up: JIT, connections
      const rounds: FeedResult['rounds'] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const oldRun = await before.load(seconds);
        await service.settled();
        const start = await send(target, { method: 'GET', path: `/${now.repositoryId}/changes?cursor=latest` });
        const versionsBefore = await now.versions();
        let done = false;
        const follower = follow(
          target,
          now.repositoryId,
          start.body.cursor,
          () => done,
          () => service.settled(),
        );
        const nowRun = await now.load(seconds);
        done = true;
        const counted = count(await follower, versionsBefore, await now.versions());
        rounds.push({ before: oldRun, now: nowRun, follower: counted });
        log(
          `  round ${round + 1}: ${BEFORE_COMMIT} ${f(oldRun.rps, 0)} writes/s, now ${f(nowRun.rps, 0)}; follower saw ${counted.seen} of ${counted.writes}`,
        );
      }
      // Capacity per change: a burst of writes, recorded until the worker has numbered them all.
      await service.settled();
      await service.startRecording({ worker: true });
      for (let start = 0; start < 200; start += 8) {
        const ids = now.documents.slice(start % POOL, (start % POOL) + 8);
        await Promise.all(
          ids.map((id, i) => send(target, { method: 'PUT', path: '/document', body: { id, content: content(start + i) } })),
        );
      }
      await service.settled();
      const perChangeCost = perChange(await service.stopRecording());
      const writesPerSecond = { before: median(rounds.map((r) => r.before.rps)), now: median(rounds.map((r) => r.now.rps)) };
      return { feed: { commit: BEFORE_COMMIT, clients: CLIENTS, seconds, rounds, writesPerSecond, perChange: perChangeCost } };
    } finally {
      await old.stop();
    }
  },
};
