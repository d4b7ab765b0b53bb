/**
 * Scale of access (issue 10): what one request costs, in latency and in consumed capacity, as a
 * user's repositories and a repository's members grow.
 *
 * 1. GET /document/{id} by a user in 1 repository and by a user in 1,000: the same 1 KB document
 *    in a repository of one member each time. The role is one attribute of a small bucket item
 *    of the document's repository (functions/core/items/keys.ts), so nothing the request reads
 *    grows with the caller's other repositories.
 * 2. GET /{id}/members from a repository of 1,000 members and from one of 10, by their owner,
 *    pages of the same size (10) so that the page itself is the same work; plus a page from the
 *    middle of the 1,000 (a token at member 500). What may grow is the owner's role bucket
 *    (1,000 members spread over 64 buckets: about 16 in each).
 *
 * Its own service, in this process, on the bench's DynamoDB Local (its own table): it needs
 * tokens for users of its own, and seeds them with the store's own calls. Budget: each ratio
 * (1,000 / 1) ≤ 1.2, for p50 latency and for capacity as AWS bills it.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { HttpError } from '#core/errors';
import { createDocument } from '#core/items/document';
import { putMember } from '#core/items/member';
import { createRepository } from '#core/items/repository';
import type { Caller } from '#core/resources';
import { startLocalService } from '#lib/local/service';
import type { Request } from '../endpoints';
import { hammer, median, quantile, round, send, type Target } from '../load';
import { f, table } from '../markdown';
import { type Recorded, startRecording, stopRecording } from '../recorder';
import type { Bench, Scenario } from '../run';
import { oneKb } from '../seed';

const MANY = 1_000;
const FEW_MEMBERS = 10;
const PAGE = 10;
const ROUNDS = 5;
/** Seeding calls in flight at once (they contend for one item: the store retries, and so does this). */
const SEED_WIDTH = 4;
export const SHARING_BUDGET = 1.2;

interface Measured {
  label: string;
  p50: number;
  p99: number;
  requests: number;
  /** Capacity of one request, as AWS bills it (recorder.ts) and as DynamoDB Local reports it. */
  rru: number;
  localRcu: number;
  /** The DynamoDB requests it made, in order. */
  dynamodb: string;
}

export interface SharingResult {
  document: { one: Measured; many: Measured; latencyRatio: number; capacityRatio: number };
  members: { few: Measured; many: Measured; deep: Measured; latencyRatio: number; capacityRatio: number; pageSize: number };
  seedSeconds: number;
}

interface Case {
  label: string;
  target: Target;
  request: Request;
}

const sum = (recorded: Recorded[], pick: (r: Recorded) => number) => recorded.reduce((total, r) => total + pick(r), 0);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One request recorded: its AWS-billed read units, what DynamoDB Local reported, its requests.
 * The least of three: anything else in flight (a load run's last request, the background
 * worker) can only add to a recording.
 */
async function capacityOf(c: Case) {
  await sleep(300);
  const runs = [await recordOne(c), await recordOne(c), await recordOne(c)];
  return runs.reduce((least, run) => (run.rru < least.rru ? run : least));
}

async function recordOne({ target, request, label }: Case) {
  startRecording();
  let status: number;
  let recorded: Recorded[];
  try {
    ({ status } = await send(target, request));
  } finally {
    recorded = stopRecording();
  }
  if (status !== 200) throw new Error(`${label}: ${request.method} ${request.path} answered ${status}`);
  return {
    rru: sum(recorded, (r) => r.touched.filter((t) => t.action === 'read').reduce((units, t) => units + t.units, 0)),
    localRcu: sum(recorded, (r) => r.local.read),
    dynamodb: recorded.map((r) => r.operation).join(', '),
  };
}

/** The cases' latencies, one request at a time, the cases taking turns so drift hits them alike. */
async function latencies(cases: Case[], seconds: number): Promise<number[][]> {
  const samples = cases.map(() => [] as number[]);
  const run = async ({ target, request, label }: Case, runSeconds: number) => {
    const result = await hammer(target, () => request, 200, 1, runSeconds);
    if (result.errors > 0) throw new Error(`${label}: ${result.errors} failed requests`);
    return result.latencies;
  };
  for (const c of cases) await run(c, 1); // warm-up
  for (let turn = 0; turn < ROUNDS; turn++) {
    for (const [i, c] of cases.entries()) samples[i]!.push(...(await run(c, Math.max(1, seconds / 2))));
  }
  return samples;
}

async function measure(cases: Case[], seconds: number): Promise<Measured[]> {
  const samples = await latencies(cases, seconds);
  const measured: Measured[] = [];
  for (const [i, c] of cases.entries()) {
    const s = samples[i]!;
    measured.push({
      label: c.label,
      p50: round(median(s), 3),
      p99: round(quantile(s, 0.99), 3),
      requests: s.length,
      ...(await capacityOf(c)),
    });
  }
  return measured;
}

/** A transient failure: the store gave up (503: too many racing changes), or DynamoDB Local did not answer in time (a busy machine). */
const transient = (error: unknown) =>
  (error instanceof HttpError && error.status === 503) || (error instanceof Error && error.name === 'TimeoutError');

/** One call, made again after a transient failure. */
async function retried<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!transient(error) || attempt >= 10) throw error;
    }
  }
}

/**
 * `count` calls, SEED_WIDTH at a time; a call the store gave up on (503: too many racing changes)
 * or DynamoDB Local did not answer in time (the SDK's TimeoutError, on a busy machine) is made
 * again. A timed-out call may have committed, so a repository create made again may make one
 * twice: once one has timed out, a create refused at the limit (409 `repository-limit`) finds the
 * user in as many repositories as the seeding is for, and counts as done.
 */
async function seed(count: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  let timedOut = false;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      for (let attempt = 0; ; attempt++) {
        try {
          await call(i);
          break;
        } catch (error) {
          if (timedOut && error instanceof HttpError && error.kind === 'repository-limit') break;
          timedOut ||= error instanceof Error && error.name === 'TimeoutError';
          if (!transient(error) || attempt >= 10) throw error;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: SEED_WIDTH }, worker));
}

export const sharing: Scenario = {
  name: 'sharing',
  title: `scale of access: GET /document/{id} in 1 vs ${MANY} repositories, GET /{id}/members of ${MANY} vs ${FEW_MEMBERS} members`,
  // report.ts does not know `sharing` yet: it goes to results.json as it is (see sharingSection).
  run: async (bench) => ({ sharing: await measureSharing(bench) }),
};

async function measureSharing({ service: benchService, lambdaEnv, scratch, seconds, log }: Bench): Promise<SharingResult> {
  await benchService.settled(); // the bench's own service idle: it shares DynamoDB Local with this one
  const dataDir = join(scratch, 'sharing');
  await mkdir(dataDir, { recursive: true });
  const service = await startLocalService({
    port: 0,
    dataDir,
    tableName: 'documents-bench-sharing',
    dynamodbEndpoint: lambdaEnv.DYNAMODB_ENDPOINT!,
    log: () => {},
  });
  try {
    const target = async (userId: string): Promise<Target> => ({ url: service.url, token: await service.issueToken(userId) });
    const started = performance.now();

    // 1. A user in one repository, and a user in MANY; each reads a 1 KB document in a repository of its own.
    const documentIn = async (caller: Caller) => {
      const repository = await createRepository(caller, { name: 'Read here', description: '' });
      return (
        await createDocument(caller, { folderId: repository.rootFolderId, name: 'one-kb.txt', content: oneKb(), contentType: 'text/plain' })
      ).id;
    };
    const one: Caller = { userId: 'in-one-repository' };
    const many: Caller = { userId: `in-${MANY}-repositories` };
    const oneDocument = await retried(() => documentIn(one));
    const manyDocument = await retried(() => documentIn(many));
    await seed(MANY - 1, (i) => createRepository(many, { name: `Repository ${i + 1}`, description: '' }));

    // 2. An owner with a repository of MANY members and one of FEW_MEMBERS.
    const owner: Caller = { userId: 'owner-of-both' };
    const crowd = await retried(() => createRepository(owner, { name: 'Crowd', description: '' }));
    const few = await retried(() => createRepository(owner, { name: 'Few', description: '' }));
    const memberId = (i: number) => `member-${String(i).padStart(4, '0')}`;
    await seed(FEW_MEMBERS - 1, (i) => putMember(owner, few.id, memberId(i + 1), 'viewer'));
    await seed(MANY - 1, (i) => putMember(owner, crowd.id, memberId(i + 1), 'viewer'));
    await service.worker.settled(300_000);
    const seedSeconds = (performance.now() - started) / 1000;
    log(`  seeded ${MANY} repositories of one user and ${MANY} members of one repository in ${f(seedSeconds, 0)} s`);

    const ownerTarget = await target(owner.userId);
    const members = (id: string, token?: string) => `/${id}/members?limit=${PAGE}${token ? `&nextToken=${token}` : ''}`;
    let token: string | undefined;
    for (let i = 0; i < MANY / 2 / 100; i++) {
      const { body } = await send(ownerTarget, {
        method: 'GET',
        path: `/${crowd.id}/members?limit=100${token ? `&nextToken=${token}` : ''}`,
      });
      token = body.nextToken;
    }

    const [docOne, docMany] = await measure(
      [
        { label: 'in 1 repository', target: await target(one.userId), request: { method: 'GET', path: `/document/${oneDocument}` } },
        {
          label: `in ${MANY} repositories`,
          target: await target(many.userId),
          request: { method: 'GET', path: `/document/${manyDocument}` },
        },
      ],
      seconds,
    );
    const [membersFew, membersMany, membersDeep] = await measure(
      [
        { label: `${FEW_MEMBERS} members`, target: ownerTarget, request: { method: 'GET', path: members(few.id) } },
        { label: `${MANY} members`, target: ownerTarget, request: { method: 'GET', path: members(crowd.id) } },
        { label: `${MANY} members, page at ${MANY / 2}`, target: ownerTarget, request: { method: 'GET', path: members(crowd.id, token) } },
      ],
      seconds,
    );
    const result: SharingResult = {
      document: {
        one: docOne!,
        many: docMany!,
        latencyRatio: round(docMany!.p50 / docOne!.p50, 3),
        capacityRatio: round(docMany!.rru / docOne!.rru, 3),
      },
      members: {
        few: membersFew!,
        many: membersMany!,
        deep: membersDeep!,
        latencyRatio: round(Math.max(membersMany!.p50, membersDeep!.p50) / membersFew!.p50, 3),
        capacityRatio: round(Math.max(membersMany!.rru, membersDeep!.rru) / membersFew!.rru, 3),
        pageSize: PAGE,
      },
      seedSeconds,
    };
    for (const line of sharingBudgets(result)) log(`  ${line.verdict.padEnd(8)} ${line.budget}: ${line.measured}`);
    return result;
  } finally {
    await service.stop();
  }
}

/** The scenario's budgets, in the shape of budgets.ts. */
export function sharingBudgets(s: SharingResult) {
  const line = (budget: string, ratio: number, measured: string) => ({
    budget,
    measured: `${f(ratio)}× (${measured})`,
    verdict: ratio <= SHARING_BUDGET ? ('met' as const) : ('missed' as const),
  });
  const { document: d, members: m } = s;
  return [
    line(
      `GET /document/{id} latency, caller in ${MANY} repositories ≤ ${SHARING_BUDGET}× in 1`,
      d.latencyRatio,
      `p50 ${f(d.many.p50)} vs ${f(d.one.p50)} ms`,
    ),
    line(
      `GET /document/{id} capacity, caller in ${MANY} repositories ≤ ${SHARING_BUDGET}× in 1`,
      d.capacityRatio,
      `${d.many.rru} vs ${d.one.rru} RRU`,
    ),
    line(
      `GET /{id}/members latency, ${MANY} members ≤ ${SHARING_BUDGET}× ${FEW_MEMBERS} (pages of ${m.pageSize})`,
      m.latencyRatio,
      `p50 ${f(Math.max(m.many.p50, m.deep.p50))} vs ${f(m.few.p50)} ms`,
    ),
    line(
      `GET /{id}/members capacity, ${MANY} members ≤ ${SHARING_BUDGET}× ${FEW_MEMBERS} (pages of ${m.pageSize})`,
      m.capacityRatio,
      `${Math.max(m.many.rru, m.deep.rru)} vs ${m.few.rru} RRU`,
    ),
  ];
}

/** results.md's section (report.ts). */
export const sharingSection = (s: SharingResult) => `## 8. Scale of access

One request at a time, the cases taking turns (${ROUNDS} rounds), on a service of its own in the runner process (its
own table, seeded with the store's own calls in ${f(s.seedSeconds, 0)} s). Capacity is one request's, as AWS bills it
(\`bench/recorder.ts\`), and as DynamoDB Local reports it.

${table(
  ['GET /document/{id}, caller', 'p50 ms', 'p99 ms', 'requests', 'DynamoDB', 'RRU (AWS)', 'RCU (local)'],
  [s.document.one, s.document.many].map((m) => [m.label, f(m.p50), f(m.p99), m.requests, m.dynamodb, m.rru, m.localRcu]),
)}

The caller's role is one attribute of a bucket item of the document's repository (64 buckets, by a hash of the user
id), read in the same BatchGetItem as the document: nothing read grows with the caller's other repositories.
Ratios ${MANY} / 1: latency **${f(s.document.latencyRatio)}**, capacity **${f(s.document.capacityRatio)}**.

${table(
  [`GET /{id}/members?limit=${s.members.pageSize}, by the owner`, 'p50 ms', 'p99 ms', 'requests', 'DynamoDB', 'RRU (AWS)', 'RCU (local)'],
  [s.members.few, s.members.many, s.members.deep].map((m) => [m.label, f(m.p50), f(m.p99), m.requests, m.dynamodb, m.rru, m.localRcu]),
)}

Pages of the same size (${s.members.pageSize}), so that the page is the same work; the owner's role bucket holds about
${Math.round(MANY / 64)} members in the large repository and one in the small. Ratios ${MANY} / ${FEW_MEMBERS} (the worse of
the first and the middle page): latency **${f(s.members.latencyRatio)}**, capacity **${f(s.members.capacityRatio)}**.
`;
