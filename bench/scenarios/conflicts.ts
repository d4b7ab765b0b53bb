/**
 * Transaction conflicts (issue 19, item 5): what parallel writes into one repository cost when
 * DynamoDB cancels transactions that overlap on one item, as it does on AWS, and DynamoDB Local
 * (serializing everything) never does.
 *
 * A DynamoDB Local of its own (fresh, in memory) with two ways in: straight to java (conflict
 * mode off: the reference, what tests saw before) and through the proxy in conflict mode
 * (lib/local/transaction-conflicts.ts, what `startDynamoDbLocal` gives by default). Three
 * services, each a process of its own on a table of its own, taking turns, ROUNDS rounds:
 * - `before`: the service at BEFORE_COMMIT (conflict mode in, role buckets and retries as they
 *   were), taken out of git with `git archive`, conflict mode on;
 * - `now`: this service, conflict mode on;
 * - `now, off`: this service, conflict mode off.
 * Workloads, each a burst started at once and waited for, BURSTS times, each burst after one
 * write of the same kind alone (the reference latency, under the same conditions):
 * - one user's 8 parallel creates in one folder;
 * - one user's 8 parallel updates of 8 documents in one folder, and of 8 documents in 8 folders;
 * - 32 users (editors) each creating a document in one folder at once.
 * Reported: answers other than 2xx (503s apart), p50/p99 latency and their ratio to the writes
 * alone, and the conflicts the proxy refused (each one a retry).
 */
import { execFile, fork } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type DynamoDbProxy, startDynamoDbProxy } from '#lib/local/commit-barrier';
import { type DynamoDbLocal, startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { median, quantile, send, type Target } from '../load';
import { f, table } from '../markdown';
import type { Results } from '../report';
import type { Bench, Scenario } from '../run';

/** The last commit before the redesign: conflict mode is there, the role check and the retries as they were. */
export const BEFORE_COMMIT = '4c9b827';
const ROUNDS = 3;
const BURSTS = 8;
const USERS = 32;
const OWNER = 'conflicts-owner';
const userId = (i: number) => (i === 0 ? OWNER : `conflicts-editor-${String(i).padStart(2, '0')}`);

type WorkloadName = 'creates8' | 'updates8' | 'updates8Folders' | 'users32';
const WORKLOADS: { name: WorkloadName; label: string; alone: 'create' | 'update' }[] = [
  { name: 'creates8', label: "one user's 8 parallel creates, one folder", alone: 'create' },
  { name: 'updates8', label: "one user's 8 parallel updates, one folder", alone: 'update' },
  { name: 'updates8Folders', label: "one user's 8 parallel updates, 8 folders", alone: 'update' },
  { name: 'users32', label: '32 users creating in one folder at once', alone: 'create' },
];

interface Outcome {
  requests: number;
  /** 503 answers. */
  unavailable: number;
  /** Any other answer than the expected 2xx. */
  wrong: number;
  p50: number;
  p99: number;
  /** The same kind of write alone (one before each burst, so under the same conditions). */
  alone: { p50: number; p99: number };
  /** p50 / alone p50 and p99 / alone p99 (of the round; in a total, the rounds' medians). */
  ratio: { p50: number; p99: number };
  /** Conflicts the proxy refused during the workload (each one retried by the service, or a 503). */
  conflicts: number;
}

type SideName = 'before' | 'now' | 'nowOff';
const SIDES: { name: SideName; label: string }[] = [
  { name: 'before', label: `before (${BEFORE_COMMIT}), conflict mode on` },
  { name: 'now', label: 'now, conflict mode on' },
  { name: 'nowOff', label: 'now, conflict mode off' },
];

export interface ConflictsResult {
  commit: string;
  rounds: number;
  bursts: number;
  /** Per side, per workload: the rounds' outcomes, and their sums (requests, 503s, conflicts) and median p50/p99. */
  sides: Record<SideName, Record<WorkloadName, { rounds: Outcome[]; total: Outcome }>>;
}

interface Side {
  name: SideName;
  url: string;
  tokens: Record<string, string>;
  folderId: string;
  documents: string[];
  /** One document in each of 8 folders. */
  spread: string[];
  /** The document the updates alone change (in a folder of its own). */
  single: string;
  stop(): Promise<void>;
  /** Refused conflicts so far (0 when conflict mode is off). */
  refused(): number;
}

const launcherSource = (serviceModule: string) => `import { startLocalService } from ${JSON.stringify(serviceModule)};
const [endpoint, tableName, dataDir, users] = process.argv.slice(2);
const service = await startLocalService({ port: 0, dataDir, tableName, dynamodbEndpoint: endpoint, log: () => {} });
const tokens = {};
for (const user of JSON.parse(users)) tokens[user] = await service.issueToken(user);
process.send({ url: service.url, tokens });
process.on('message', async (message) => {
  if (message === 'settled') return process.send((await service.worker.settled(120000), 'settled'));
  await service.stop();
  process.exit(0);
});
`;

async function startSide(
  bench: Pick<Bench, 'scratch'>,
  name: SideName,
  root: string,
  endpoint: string,
  refused: () => number,
): Promise<Omit<Side, 'folderId' | 'documents' | 'spread' | 'single'>> {
  const dir = join(bench.scratch, `conflicts-${name}`);
  await mkdir(dir, { recursive: true });
  const launcher = join(dir, 'launch.mts');
  await writeFile(launcher, launcherSource(join(root, 'lib/local/service.ts')));
  const users = JSON.stringify(Array.from({ length: USERS }, (_, i) => userId(i)));
  const child = fork(launcher, [endpoint, `documents-conflicts-${name}`, join(dir, '.data'), users], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'SILENT' }, // a 503 is counted here, not logged there
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url, tokens } = await new Promise<{ url: string; tokens: Record<string, string> }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { url: string; tokens: Record<string, string> }));
    child.once('exit', (code) => reject(new Error(`the ${name} service exited (${code})`)));
  });
  return {
    name,
    url,
    tokens,
    refused,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

const as = (side: Pick<Side, 'url' | 'tokens'>, user = OWNER): Target => ({ url: side.url, token: side.tokens[user]! });
const content = (n: number) => `${n}`.padEnd(256, '.');
let made = 0;

/** A repository with USERS - 1 editors, 8 documents in its root folder and one in each of 8 folders. */
async function prepare(side: Omit<Side, 'folderId' | 'documents' | 'spread' | 'single'>): Promise<Side> {
  const must = async (request: Parameters<typeof send>[1], status: number, user = OWNER) => {
    for (let attempt = 0; ; attempt++) {
      const answer = await send(as(side, user), request);
      if (answer.status === status) return answer.body;
      if (answer.status !== 503 || attempt >= 5)
        throw new Error(`${side.name}: ${request.method} ${request.path} answered ${answer.status}`);
    }
  };
  const repository = await must({ method: 'POST', path: '/', body: { name: 'Conflicts' } }, 201);
  for (let i = 1; i < USERS; i++) {
    await must({ method: 'PUT', path: `/${repository.id}/members/${userId(i)}`, body: { role: 'editor' } }, 201);
  }
  const folderId = repository.rootFolderId as string;
  const documents: string[] = [];
  const spread: string[] = [];
  for (let i = 0; i < 8; i++) {
    documents.push(
      (await must({ method: 'POST', path: '/document', body: { folderId, name: `doc-${i}.txt`, content: content(0) } }, 201)).id,
    );
    const folder = await must({ method: 'POST', path: '/folder', body: { parentId: folderId, name: `folder-${i}` } }, 201);
    spread.push(
      (await must({ method: 'POST', path: '/document', body: { folderId: folder.id, name: 'doc.txt', content: content(0) } }, 201)).id,
    );
  }
  const own = await must({ method: 'POST', path: '/folder', body: { parentId: folderId, name: 'alone' } }, 201);
  const single = (await must({ method: 'POST', path: '/document', body: { folderId: own.id, name: 'doc.txt', content: content(0) } }, 201))
    .id;
  return { ...side, folderId, documents, spread, single };
}

/**
 * BURSTS times: one write of the same kind alone, then `burst()` (its requests started
 * together, waited for). The writes alone are the reference, taken under the same conditions.
 */
async function measure(
  side: Side,
  burst: (side: Side) => { user: string; request: Parameters<typeof send>[1]; status: number }[],
  alone: (side: Side) => { user: string; request: Parameters<typeof send>[1]; status: number },
): Promise<Outcome> {
  const latencies: number[] = [];
  const single: number[] = [];
  let unavailable = 0;
  let wrong = 0;
  const timed = async ({ user, request, status }: ReturnType<typeof alone>, into: number[]) => {
    const started = performance.now();
    const answer = await send(as(side, user), request);
    into.push(performance.now() - started);
    if (answer.status === 503) unavailable++;
    else if (answer.status !== status) wrong++;
  };
  const refusedBefore = side.refused();
  for (let b = 0; b < BURSTS; b++) {
    await timed(alone(side), single);
    await Promise.all(burst(side).map((write) => timed(write, latencies)));
  }
  const p50 = quantile(latencies, 0.5);
  const p99 = quantile(latencies, 0.99);
  const aloneP = { p50: quantile(single, 0.5), p99: quantile(single, 0.99) };
  return {
    requests: latencies.length,
    unavailable,
    wrong,
    p50,
    p99,
    alone: aloneP,
    ratio: { p50: p50 / aloneP.p50, p99: p99 / aloneP.p99 },
    conflicts: side.refused() - refusedBefore,
  };
}

const create = (side: Side, user: string, folderId = side.folderId) => ({
  user,
  request: { method: 'POST' as const, path: '/document', body: { folderId, name: `new-${made++}.txt`, content: content(made) } },
  status: 201,
});
const update = (user: string, id: string) => ({
  user,
  request: { method: 'PUT' as const, path: '/document', body: { id, content: content(made++) } },
  status: 200,
});

type Write = ReturnType<Parameters<typeof measure>[2]>;
const workloads: Record<WorkloadName, (side: Side) => Write[]> = {
  creates8: (side) => Array.from({ length: 8 }, () => create(side, OWNER)),
  updates8: (side) => side.documents.map((id) => update(OWNER, id)),
  updates8Folders: (side) => side.spread.map((id) => update(OWNER, id)),
  users32: (side) => Array.from({ length: USERS }, (_, i) => create(side, userId(i))),
};
/** A write alone: a create in the folder, or an update of a document of its own (the ninth folder's). */
const alone = { create: (side: Side) => create(side, OWNER), update: (side: Side) => update(OWNER, side.single) };

export const conflicts: Scenario = {
  name: 'conflicts',
  title: `transaction conflicts: one user's 8 parallel writes, 32 users in one folder; before (${BEFORE_COMMIT}) and now, conflict mode on and off`,
  run: async (bench) => ({ conflicts: await measureConflicts(bench) }) as unknown as Partial<Results>,
};

async function measureConflicts(bench: Pick<Bench, 'scratch' | 'log'> & { service?: Bench['service'] }): Promise<ConflictsResult> {
  const { log } = bench;
  await bench.service?.settled(); // the bench's own service idle
  const dynamodb: DynamoDbLocal = await startDynamoDbLocal({ conflicts: false });
  let proxy: DynamoDbProxy | undefined;
  const sides: Side[] = [];
  try {
    proxy = await startDynamoDbProxy(dynamodb.endpoint, { conflicts: true });
    const refused = () => (proxy!.conflicts!.refused.transactions ?? 0) + (proxy!.conflicts!.refused.writes ?? 0);
    const { stdout: top } = await promisify(execFile)('git', ['rev-parse', '--show-toplevel']);
    const repository = top.trim();
    // CONFLICTS_NOW_ROOT: "now" from another tree (a clean export of HEAD, when the checkout holds others' work in progress).
    const now = process.env.CONFLICTS_NOW_ROOT ?? repository;
    const before = join(bench.scratch, `service-${BEFORE_COMMIT}`);
    await mkdir(before, { recursive: true });
    await promisify(execFile)('sh', ['-c', `git -C "${repository}" archive ${BEFORE_COMMIT} | tar -x -C "${before}"`]);
    await symlink(join(repository, 'node_modules'), join(before, 'node_modules'));
    const started = {
      before: await startSide(bench, 'before', before, proxy.endpoint, refused),
      now: await startSide(bench, 'now', now, proxy.endpoint, refused),
      nowOff: await startSide(bench, 'nowOff', now, dynamodb.endpoint, () => 0),
    };
    for (const side of SIDES) sides.push(await prepare(started[side.name]));
    const result: ConflictsResult = {
      commit: BEFORE_COMMIT,
      rounds: ROUNDS,
      bursts: BURSTS,
      sides: Object.fromEntries(
        SIDES.map((side) => [side.name, Object.fromEntries(WORKLOADS.map((w) => [w.name, { rounds: [], total: undefined }]))]),
      ) as unknown as ConflictsResult['sides'],
    };
    // Warm up (JIT, connections) on every side.
    for (const side of sides) await measure(side, workloads.creates8, alone.create);
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of sides) {
        for (const workload of WORKLOADS)
          result.sides[side.name][workload.name].rounds.push(await measure(side, workloads[workload.name], alone[workload.alone]));
        const cell = result.sides[side.name];
        log(
          `  round ${round + 1}, ${side.name}: ` +
            WORKLOADS.map((w) => {
              const o = cell[w.name].rounds.at(-1)!;
              return `${w.name} p50 ${f(o.p50, 0)} ms (${f(o.ratio.p50)}× alone)${o.unavailable ? ` ${o.unavailable}×503` : ''}${o.conflicts ? ` ${o.conflicts} conflicts` : ''}`;
            }).join(', '),
        );
      }
    }
    for (const side of SIDES) {
      for (const workload of WORKLOADS) {
        const cell = result.sides[side.name][workload.name];
        const sum = (pick: (o: Outcome) => number) => cell.rounds.reduce((total, o) => total + pick(o), 0);
        cell.total = {
          requests: sum((o) => o.requests),
          unavailable: sum((o) => o.unavailable),
          wrong: sum((o) => o.wrong),
          conflicts: sum((o) => o.conflicts),
          p50: median(cell.rounds.map((o) => o.p50)),
          p99: median(cell.rounds.map((o) => o.p99)),
          alone: { p50: median(cell.rounds.map((o) => o.alone.p50)), p99: median(cell.rounds.map((o) => o.alone.p99)) },
          ratio: { p50: median(cell.rounds.map((o) => o.ratio.p50)), p99: median(cell.rounds.map((o) => o.ratio.p99)) },
        };
      }
    }
    log(conflictsSection(result));
    return result;
  } finally {
    await Promise.all(sides.map((side) => side.stop().catch(() => {})));
    await proxy?.close();
    await dynamodb.stop();
  }
}

/** The report's section (also logged): one table per side. */
export function conflictsSection(r: ConflictsResult): string {
  const rows = (side: SideName) =>
    WORKLOADS.map((w) => {
      const cell = r.sides[side][w.name].total;
      return [
        w.label,
        cell.requests,
        cell.unavailable,
        cell.wrong,
        cell.conflicts,
        `${f(cell.p50, 0)} / ${f(cell.p99, 0)}`,
        `${f(cell.alone.p50, 0)} / ${f(cell.alone.p99, 0)}`,
        f(cell.ratio.p50),
        f(cell.ratio.p99),
      ];
    });
  const header = [
    'Workload',
    'requests',
    '503',
    'other errors',
    'conflicts refused',
    'p50 / p99 ms',
    'alone p50 / p99 ms',
    'p50 / alone',
    'p99 / alone',
  ];
  return `## Transaction conflicts

${r.rounds} rounds of ${r.bursts} bursts each, the services taking turns on one fresh DynamoDB Local; p50 and p99 are the
rounds' medians, counts their sums. Before each burst one write of the same kind goes alone (a create in the folder, an
update of a document in a folder of its own): the ratios compare each round's burst with those, under the same load
(median of the rounds). "Conflicts refused" is what the proxy cancelled: each one a retry by the service, or a 503.

${SIDES.map((side) => `**${side.label}**\n\n${table(header, rows(side.name))}`).join('\n\n')}
`;
}

// `node --import tsx bench/scenarios/conflicts.ts`: this scenario alone, its section printed
// (results.json and the reports untouched).
if (process.argv[1]?.endsWith('conflicts.ts')) {
  const scratch = await mkdtemp(join(tmpdir(), 'documents-conflicts-'));
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  try {
    const result = await measureConflicts({ scratch, log: (line) => process.stdout.write(`${line}\n`) });
    await writeFile(join(scratch, '..', `conflicts-${Date.now()}.json`), JSON.stringify(result, null, 2));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
