/**
 * The change feed under load, and what it costs (issue 12). Three measurements:
 *
 * 1. **Writes per second into one repository** from 32 clients, with the feed (this service: each
 *    write records its change, the background worker numbers them into the feed), against the
 *    same writes before this issue: the service at commit ded926d, taken out of git with `git
 *    archive` and run side by side in its own process, on the same DynamoDB Local (its own table),
 *    the two taking turns, three rounds each. ded926d is the last commit before the history data
 *    model, so "before" has neither the feed nor revisions (nor role buckets, trash marks).
 * 2. **A follower** reads the feed from `latest` during every run with the feed: it must see each
 *    write once, in order per document. The writes are counted from the documents' versions
 *    (each committed update is one version, whether or not its answer arrived in the run).
 * 3. **The feed's capacity per change**: the requests recorded while the worker numbers a burst
 *    of writes, priced by AWS's billing rules as the capacity scenario prices an endpoint.
 */
import { execFile, fork } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { hammer, type Latency, median, send, summarize, type Target } from '../load';
import { f, table, usd } from '../markdown';
import { prices } from '../prices';
import type { Recorded } from '../recorder';
import type { Bench, Scenario } from '../run';

/** The commit before the history data model: the same writes, no feed. */
export const BEFORE_COMMIT = 'ded926d';
const CLIENTS = 32;
const ROUNDS = 3;
/** Documents the load updates, round robin: one repository, one folder. */
const POOL = 300;

interface FollowerCount {
  /** Updates committed in the run (documents' versions after minus before). */
  writes: number;
  /** Changes the follower saw. */
  seen: number;
  duplicates: number;
  /** Changes of a document that did not follow its previous one (version + 1). */
  outOfOrder: number;
}

export interface FeedResult {
  commit: string;
  clients: number;
  seconds: number;
  rounds: { before: Latency; now: Latency; follower: FollowerCount }[];
  /** Medians of the rounds. */
  writesPerSecond: { before: number; now: number };
  perChange: {
    changes: number;
    /** The pending change each write puts in its own transaction. */
    writeSide: { wru: number };
    /** The worker: numbering transactions (numbered change put, pending change removed, counter, repository check) and its counter reads. */
    worker: { wru: number; rru: number; transactions: number };
    /** What DynamoDB Local reported for the same requests. */
    local: { read: number; write: number };
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const content = (n: number) => `${n}`.padEnd(1024, '.');

/** One service the load runs against: a repository with POOL documents in its root folder. */
interface Side {
  target: Target;
  repositoryId: string;
  folderId: string;
  documents: string[];
}

async function prepareSide(target: Target, label: string): Promise<Side> {
  const repository = await send(target, { method: 'POST', path: '/', body: { name: `Feed load ${label}` } });
  if (repository.status !== 201) throw new Error(`${label}: POST / answered ${repository.status}`);
  const folderId = repository.body.rootFolderId as string;
  const documents: string[] = [];
  for (let start = 0; start < POOL; start += 16) {
    const made = await Promise.all(
      Array.from({ length: Math.min(16, POOL - start) }, (_, i) =>
        send(target, { method: 'POST', path: '/document', body: { folderId, name: `doc-${start + i}.txt`, content: content(0) } }),
      ),
    );
    for (const res of made) {
      if (res.status !== 201) throw new Error(`${label}: POST /document answered ${res.status}`);
      documents.push(res.body.id);
    }
  }
  return { target, repositoryId: repository.body.id, folderId, documents };
}

/** Each document's version, from the folder's list. */
async function versions(side: Side): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  let token: string | undefined;
  do {
    const query = `limit=100${token ? `&nextToken=${token}` : ''}`;
    const { status, body } = await send(side.target, { method: 'GET', path: `/folder/${side.folderId}/documents?${query}` });
    if (status !== 200) throw new Error(`listing answered ${status}`);
    for (const item of body.items) found.set(item.id, item.version);
    token = body.nextToken;
  } while (token);
  return found;
}

/** 32 clients updating the pool's documents round robin, for `seconds`. */
async function load(side: Side, seconds: number): Promise<Latency> {
  let n = 0;
  const next = () => {
    const id = side.documents[n % side.documents.length]!;
    return { method: 'PUT' as const, path: '/document', body: { id, content: content(n++) } };
  };
  const run = await hammer(side.target, next, 200, CLIENTS, seconds);
  return summarize(run.latencies, run.seconds, run.errors);
}

type Change = { type: string; id: string; version: number };

/** Reads the feed from `cursor` until `done()`, then (everything numbered) to its end. */
async function follow(side: Side, cursor: string, done: () => boolean, settled: () => Promise<void>): Promise<Change[]> {
  const seen: Change[] = [];
  let draining = false;
  for (;;) {
    const res = await send(side.target, { method: 'GET', path: `/${side.repositoryId}/changes?cursor=${cursor}&limit=100` });
    if (res.status !== 200) throw new Error(`the feed answered ${res.status} ${JSON.stringify(res.body)}`);
    seen.push(...res.body.items);
    cursor = res.body.cursor;
    if (res.body.items.length > 0) continue;
    if (draining) return seen;
    if (done()) {
      await settled();
      draining = true;
      continue;
    }
    await sleep(20);
  }
}

function count(seen: readonly Change[], before: Map<string, number>, after: Map<string, number>): FollowerCount {
  const writes = [...after].reduce((sum, [id, version]) => sum + version - (before.get(id) ?? version), 0);
  const last = new Map(before);
  const keys = new Set<string>();
  let duplicates = 0;
  let outOfOrder = 0;
  for (const change of seen) {
    const key = `${change.id}@${change.version}`;
    if (keys.has(key)) duplicates++;
    keys.add(key);
    if (change.type !== 'updated' || change.version !== (last.get(change.id) ?? 0) + 1) outOfOrder++;
    last.set(change.id, change.version);
  }
  return { writes, seen: seen.length, duplicates, outOfOrder };
}

/** The service at BEFORE_COMMIT, in a process of its own on the bench's DynamoDB Local. */
async function startBefore(bench: Bench): Promise<{ target: Target; stop: () => Promise<void> }> {
  const root = join(bench.scratch, `service-${BEFORE_COMMIT}`);
  await mkdir(root, { recursive: true });
  const { stdout: top } = await promisify(execFile)('git', ['rev-parse', '--show-toplevel']);
  await promisify(execFile)('sh', ['-c', `git -C "${top.trim()}" archive ${BEFORE_COMMIT} | tar -x -C "${root}"`]);
  await symlink(join(top.trim(), 'node_modules'), join(root, 'node_modules'));
  const launcher = join(root, 'bench-before.ts');
  await writeFile(
    launcher,
    `import { startLocalService } from './lib/local/service.ts';
const [endpoint, dataDir] = process.argv.slice(2);
const service = await startLocalService({ port: 0, dataDir, tableName: 'documents-before', dynamodbEndpoint: endpoint, log: () => {} });
process.send({ url: service.url, token: await service.issueToken('bench-before') });
process.on('message', async () => { await service.stop(); process.exit(0); });
`,
  );
  const child = fork(launcher, [bench.lambdaEnv.DYNAMODB_ENDPOINT!, join(root, '.data')], {
    cwd: root,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const target = await new Promise<Target>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Target));
    child.once('exit', (code) => reject(new Error(`the ${BEFORE_COMMIT} service exited (${code})`)));
  });
  return {
    target,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

/** The worker's share of a recorded burst: numbering transactions and counter reads, per change. */
function perChange(recorded: readonly Recorded[]): FeedResult['perChange'] {
  const units = (r: Recorded, kinds?: string[]) =>
    r.touched.filter((t) => !kinds || kinds.includes(t.kind)).reduce((sum, t) => sum + t.units, 0);
  const numbering = recorded.filter((r) => r.operation === 'TransactWriteItems' && r.touched.some((t) => t.kind === 'numbered change'));
  const writes = recorded.filter((r) => r.operation === 'TransactWriteItems' && r.touched.some((t) => t.kind === 'document'));
  const counterReads = recorded.filter((r) => r.operation === 'GetItem' && r.touched.some((t) => t.kind === 'feed counter'));
  const changes = numbering.reduce((sum, r) => sum + r.touched.filter((t) => t.kind === 'numbered change').length, 0);
  const worker = [...numbering, ...counterReads];
  return {
    changes,
    writeSide: { wru: writes.reduce((sum, r) => sum + units(r, ['change']), 0) / changes },
    worker: {
      wru: numbering.reduce((sum, r) => sum + units(r), 0) / changes,
      rru: counterReads.reduce((sum, r) => sum + units(r), 0) / changes,
      transactions: numbering.length,
    },
    local: {
      read: worker.reduce((sum, r) => sum + r.local.read, 0) / changes,
      write: [...worker, ...writes].reduce((sum, r) => sum + r.local.write, 0) / changes,
    },
  };
}

export const feed: Scenario = {
  name: 'feed',
  title: `the change feed: writes/s into one repository with it vs before it (${BEFORE_COMMIT}), a follower's count, capacity per change`,
  run: async (bench) => {
    const { service, target, log } = bench;
    const before = await startBefore(bench);
    try {
      const sides = { before: await prepareSide(before.target, BEFORE_COMMIT), now: await prepareSide(target, 'now') };
      await service.settled();
      // Warm both up (JIT, connections), as the throughput scenario does.
      for (const side of [sides.before, sides.now]) await load(side, 1);
      const rounds: FeedResult['rounds'] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const old = await load(sides.before, bench.seconds);
        await service.settled();
        const start = await send(target, { method: 'GET', path: `/${sides.now.repositoryId}/changes?cursor=latest` });
        const versionsBefore = await versions(sides.now);
        let done = false;
        const follower = follow(
          sides.now,
          start.body.cursor,
          () => done,
          () => service.settled(),
        );
        const now = await load(sides.now, bench.seconds);
        done = true;
        const seen = await follower;
        const counted = count(seen, versionsBefore, await versions(sides.now));
        rounds.push({ before: old, now, follower: counted });
        log(
          `  round ${round + 1}: ${BEFORE_COMMIT} ${f(old.rps, 0)} writes/s, now ${f(now.rps, 0)} writes/s; ` +
            `follower saw ${counted.seen} of ${counted.writes} writes (${counted.duplicates} twice, ${counted.outOfOrder} out of order)`,
        );
      }

      // Capacity per change: a burst of writes, recorded until the worker has numbered them all.
      await service.settled();
      await service.startRecording({ worker: true });
      for (let start = 0; start < 200; start += 8) {
        await Promise.all(
          sides.now.documents
            .slice(start % POOL, (start % POOL) + 8)
            .map((id, i) => send(target, { method: 'PUT', path: '/document', body: { id, content: content(start + i) } })),
        );
      }
      await service.settled();
      const cost = perChange(await service.stopRecording());
      log(
        `  per change: ${f(cost.writeSide.wru)} WRU in the write, ${f(cost.worker.wru)} WRU + ${f(cost.worker.rru)} RRU in the worker ` +
          `(${cost.changes} changes in ${cost.worker.transactions} numbering transactions)`,
      );
      const result: FeedResult = {
        commit: BEFORE_COMMIT,
        clients: CLIENTS,
        seconds: bench.seconds,
        rounds,
        writesPerSecond: { before: median(rounds.map((r) => r.before.rps)), now: median(rounds.map((r) => r.now.rps)) },
        perChange: cost,
      };
      return { feed: result };
    } finally {
      await before.stop();
    }
  },
};

export function feedSection(r: FeedResult): string {
  const { perChange: c } = r;
  const total = c.writeSide.wru + c.worker.wru;
  const dollars = (total * prices.dynamodbWritePerMillionUnits + c.worker.rru * prices.dynamodbReadPerMillionUnits) / 1e6;
  return `## 7. The change feed

**Writes per second into one repository**, ${r.clients} clients updating 300 documents of 1 KB in one folder round robin
(\`PUT /document\`), ${r.seconds} s per run, the two services taking turns, ${r.rounds.length} rounds: this service (every
write records its change; the background worker numbers the changes into the feed, on the same DynamoDB Local) against
the same writes **before the feed**, the service at commit \`${r.commit}\` (the last one before the history data model, so
without revisions and role buckets either), run side by side from \`git archive\` on its own table.

${table(
  ['Round', `${r.commit} writes/s`, 'now writes/s', 'ratio', 'writes committed (now)', 'follower saw', 'twice', 'out of order'],
  r.rounds.map((round, i) => [
    i + 1,
    f(round.before.rps, 0),
    f(round.now.rps, 0),
    f(round.now.rps / round.before.rps),
    round.follower.writes,
    round.follower.seen,
    round.follower.duplicates,
    round.follower.outOfOrder,
  ]),
)}

Median: **${f(r.writesPerSecond.now, 0)} writes/s with the feed, ${f(r.writesPerSecond.before, 0)} before it** (ratio ${f(r.writesPerSecond.now / r.writesPerSecond.before)}).
No write contends for a shared item: each write puts its own pending change; only the worker moves the feed's counter,
one transaction per batch. What the ratio shows here is DynamoDB Local's one writer doing more per write (the revision,
the content item, the pending change, and the worker's numbering), not contention.

**The follower** read the feed from \`latest\` (taken once everything earlier was numbered) during each run with the
feed, 100 changes a page, and on to its end once the worker had caught up. Writes are counted from the documents'
versions before and after the run (each committed update is one version), so a write whose answer came after the run
counts too. It must see every write once, each document's changes in version order.

**Capacity per change** (${c.changes} changes, ${f(c.changes / c.worker.transactions, 1)} per numbering transaction on average),
by AWS's billing rules as in §2: ${f(c.writeSide.wru)} WRU for the pending change in the write's own transaction, then
${f(c.worker.wru)} WRU and ${f(c.worker.rru)} RRU in the worker (the numbered change put, the pending change removed, the
counter and a check on the repository per transaction, the counter read per batch): **${f(total)} WRU and ${f(c.worker.rru)} RRU a change**,
${usd(dollars * 1e6)} per million changes on demand. Old changes leave by TTL (free); reading them costs the reader
(\`GET /{id}/changes\` in §2); each change is also one EventBridge event ($1.00 per million). DynamoDB Local reported
${f(c.local.write)} WCU and ${f(c.local.read)} RCU a change.
`;
}
