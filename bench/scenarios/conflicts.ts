/**
 * Transaction conflicts: what parallel writes into one repository cost when DynamoDB cancels
 * transactions that overlap on one item, as it does on AWS and DynamoDB Local never does. A
 * DynamoDB Local of its own, with two ways in: straight to java, and through the proxy in
 * conflict mode (lib/local/transaction-conflicts.ts, what `startDynamoDbLocal` gives by default).
 * Three services, each a process of its own on a table of its own, taking turns, ROUNDS rounds:
 * the service at BEFORE_COMMIT (the last before the role lanes and retries) and this one through
 * the proxy, and this one straight to java. Each workload is a burst started at once, BURSTS
 * times, each after one write of the same kind alone (the reference, under the same conditions).
 * Alone: `node --import tsx bench/scenarios/conflicts.ts`.
 */
import { join } from 'node:path';
import { startDynamoDbProxy } from '#lib/local/commit-barrier';
import { startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { median, quantile, type Request, send, sum } from '../load';
import { f } from '../markdown';
import { checkout, type OtherService, startServiceOf, thisTree } from '../processes';
import type { ConflictsOutcome, ConflictsResult } from '../results';
import type { Scenario } from '../scenario';

export const BEFORE_COMMIT = '4c9b827';
const ROUNDS = 3;
const BURSTS = 8;
const USERS = Array.from({ length: 32 }, (_, i) => (i === 0 ? 'conflicts-owner' : `conflicts-editor-${String(i).padStart(2, '0')}`));
const OWNER = USERS[0]!;
const content = (n: number) => `${n}`.padEnd(256, '.');
let made = 0;

type Write = { user: string; request: Request; status: number };
/** A repository with 31 editors, 8 documents in its root folder, one in each of 8 folders, and one alone in a ninth. */
async function prepare(service: OtherService) {
  const must = async (request: Request, status: number) => {
    for (let attempt = 0; ; attempt++) {
      const answer = await send(service.as(OWNER), request);
      if (answer.status === status) return answer.body;
      if (answer.status !== 503 || attempt >= 5) throw new Error(`${request.method} ${request.path} answered ${answer.status}`);
    }
  };
  const repository = await must({ method: 'POST', path: '/', body: { name: 'Conflicts' } }, 201);
  for (const user of USERS.slice(1))
    await must({ method: 'PUT', path: `/${repository.id}/members/${user}`, body: { role: 'editor' } }, 201);
  const folderId = repository.rootFolderId as string;
  const document = async (parentId: string, name: string) =>
    (await must({ method: 'POST', path: '/document', body: { folderId: parentId, name, content: content(0) } }, 201)).id as string;
  const folder = async (name: string) =>
    (await must({ method: 'POST', path: '/folder', body: { parentId: folderId, name } }, 201)).id as string;
  const [documents, spread] = [[] as string[], [] as string[]];
  for (let i = 0; i < 8; i++) {
    documents.push(await document(folderId, `doc-${i}.txt`));
    spread.push(await document(await folder(`folder-${i}`), 'doc.txt'));
  }
  const single = await document(await folder('alone'), 'doc.txt');
  const create = (user: string): Write => ({
    user,
    request: { method: 'POST', path: '/document', body: { folderId, name: `new-${made++}.txt`, content: content(made) } },
    status: 201,
  });
  const update = (id: string): Write => ({
    user: OWNER,
    request: { method: 'PUT', path: '/document', body: { id, content: content(made++) } },
    status: 200,
  });
  /** Each workload: its burst, and the write alone before it. */
  return {
    "one user's 8 parallel creates, one folder": { burst: () => documents.map(() => create(OWNER)), alone: () => create(OWNER) },
    "one user's 8 parallel updates, one folder": { burst: () => documents.map(update), alone: () => update(single) },
    "one user's 8 parallel updates, 8 folders": { burst: () => spread.map(update), alone: () => update(single) },
    '32 users creating in one folder at once': { burst: () => USERS.map(create), alone: () => create(OWNER) },
  };
}

async function measure(
  service: OtherService,
  workload: { burst: () => Write[]; alone: () => Write },
  refused: () => number,
): Promise<ConflictsOutcome> {
  const [latencies, single] = [[] as number[], [] as number[]];
  let [unavailable, wrong] = [0, 0];
  const timed = async ({ user, request, status }: Write, into: number[]) => {
    const started = performance.now();
    const answer = await send(service.as(user), request);
    into.push(performance.now() - started);
    if (answer.status === 503) unavailable++;
    else if (answer.status !== status) wrong++;
  };
  const refusedBefore = refused();
  for (let b = 0; b < BURSTS; b++) {
    await timed(workload.alone(), single);
    await Promise.all(workload.burst().map((write) => timed(write, latencies)));
  }
  const [p50, p99, alone] = [
    quantile(latencies, 0.5),
    quantile(latencies, 0.99),
    { p50: quantile(single, 0.5), p99: quantile(single, 0.99) },
  ];
  return {
    requests: latencies.length,
    unavailable,
    wrong,
    p50,
    p99,
    alone,
    ratio: { p50: p50 / alone.p50, p99: p99 / alone.p99 },
    conflicts: refused() - refusedBefore,
  };
}

/** The rounds of one cell: counts summed, latencies and ratios their medians. */
const total = (rounds: ConflictsOutcome[]): ConflictsOutcome => {
  const mid = (pick: (o: ConflictsOutcome) => number) => median(rounds.map(pick));
  const add = (pick: (o: ConflictsOutcome) => number) => sum(rounds, pick);
  return {
    ...{
      requests: add((o) => o.requests),
      unavailable: add((o) => o.unavailable),
      wrong: add((o) => o.wrong),
      conflicts: add((o) => o.conflicts),
    },
    ...{ p50: mid((o) => o.p50), p99: mid((o) => o.p99), alone: { p50: mid((o) => o.alone.p50), p99: mid((o) => o.alone.p99) } },
    ratio: { p50: mid((o) => o.ratio.p50), p99: mid((o) => o.ratio.p99) },
  };
};

async function measureConflicts(scratch: string, log: (line: string) => void): Promise<ConflictsResult> {
  const dynamodb = await startDynamoDbLocal({ conflicts: false });
  const proxy = await startDynamoDbProxy(dynamodb.endpoint, { conflicts: true });
  const refused = () => (proxy.conflicts!.refused.transactions ?? 0) + (proxy.conflicts!.refused.writes ?? 0);
  const started: [string, OtherService, () => number][] = [];
  try {
    // CONFLICTS_NOW_ROOT: "now" from another tree (a clean export of HEAD, when the checkout holds work in progress).
    const now = process.env.CONFLICTS_NOW_ROOT ?? (await thisTree());
    const before = await checkout(BEFORE_COMMIT, join(scratch, `service-${BEFORE_COMMIT}`));
    const sides: [string, string, string][] = [
      [`before (${BEFORE_COMMIT}), conflict mode on`, before, proxy.endpoint],
      ['now, conflict mode on', now, proxy.endpoint],
      ['now, conflict mode off', now, dynamodb.endpoint],
    ];
    for (const [label, root, dynamodbEndpoint] of sides) {
      const service = await startServiceOf(root, {
        scratch,
        dynamodbEndpoint,
        tableName: `documents-conflicts-${started.length}`,
        users: USERS,
      });
      started.push([label, service, dynamodbEndpoint === proxy.endpoint ? refused : () => 0]);
    }
    const workloads = [];
    for (const [, service] of started) workloads.push(await prepare(service));
    for (const [i, [, service, count]] of started.entries()) await measure(service, Object.values(workloads[i]!)[0]!, count); // warm-up
    const rounds: Record<string, Record<string, ConflictsOutcome[]>> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, [label, service, count]] of started.entries()) {
        rounds[label] ??= {};
        for (const [name, workload] of Object.entries(workloads[i]!)) {
          rounds[label][name] ??= [];
          rounds[label][name].push(await measure(service, workload, count));
        }
        log(
          `  round ${round + 1}, ${label}: ${Object.values(rounds[label]!)
            .map((o) => `p50 ${f(o.at(-1)!.p50, 0)} ms (${f(o.at(-1)!.ratio.p50)}× alone)`)
            .join(', ')}`,
        );
      }
    }
    const cells = Object.entries(rounds).map(([label, byWorkload]) => [
      label,
      Object.fromEntries(Object.entries(byWorkload).map(([name, o]) => [name, total(o)])),
    ]);
    return { commit: BEFORE_COMMIT, rounds: ROUNDS, bursts: BURSTS, sides: Object.fromEntries(cells) };
  } finally {
    await Promise.all(started.map(([, service]) => service.stop().catch(() => {})));
    await proxy.close();
    await dynamodb.stop();
  }
}

export const conflicts: Scenario = {
  name: 'conflicts',
  title: `transaction conflicts: one user's 8 parallel writes, 32 users in one folder; before (${BEFORE_COMMIT}) and now, conflict mode on and off`,
  async run({ service, scratch, log }) {
    await service.settled(); // the bench's own service idle
    return { conflicts: await measureConflicts(scratch, log) };
  },
};

// Alone: the result as JSON on stdout (results.json and the reports untouched).
if (process.argv[1]?.endsWith('conflicts.ts')) {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const scratch = await mkdtemp(join((await import('node:os')).tmpdir(), 'documents-conflicts-'));
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  try {
    const result = await measureConflicts(scratch, (line) => process.stderr.write(`${line}\n`));
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
