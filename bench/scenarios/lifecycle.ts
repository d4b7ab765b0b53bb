/**
 * Folder life cycle and the trash (issue 11), on a repository of its own in the bench's service:
 *
 * 1. **Moving a folder with 10,000 documents below it** (a tree of 10 × 10 folders, 100 documents
 *    in each leaf) against moving an empty folder, between two folders side by side (so at the
 *    same depth), one request at a time, the two taking turns, each move followed by the
 *    background worker catching up (the refresh of the depths below a moved tree) so that neither
 *    is measured against the other's background work. The caller's latency and capacity must be
 *    the same: what is below a folder is neither read nor written by a move. Budget: ratio ≤ 1.2.
 * 2. **The trash bound**: the tree deleted (`?recursive=true`), restored, deleted again and
 *    purged; each time, from the request until the worker has settled (`worker.settled()`:
 *    everything written so far handled, and everything that followed from it) — then checked:
 *    every item below marked, unmarked, or gone with nothing left in its partitions.
 * 3. **The background work's cost**: the same steps on a tree of 1,000 documents (10 folders of
 *    100), every request of the worker recorded (bench/recorder.ts) and priced by AWS's billing
 *    rules, per 1,000 items (documents and folders below the deleted folder).
 */
import type { Request } from '../endpoints';
import { median, round, send } from '../load';
import { f, table, usd } from '../markdown';
import { prices } from '../prices';
import type { Recorded } from '../recorder';
import type { Bench, Scenario } from '../run';

const BIG = { levels: 2, fanOut: 10, perLeaf: 100 } as const;
const SMALL = { levels: 1, fanOut: 10, perLeaf: 100 } as const;
/** Moves of each folder measured (after two of each to warm up). */
const MOVES = 15;
/** Recorded moves of each folder: the least is kept (anything else in flight can only add to a recording). */
const RECORDED = 3;
export const LIFECYCLE_BUDGET = 1.2;
/** The longest the worker may take over one phase. */
const SETTLE_MS = 900_000;

interface MoveCase {
  label: string;
  p50: number;
  max: number;
  samples: number;
  /** One move as AWS bills it (recorder.ts), and as DynamoDB Local reports it. */
  rru: number;
  wru: number;
  localRcu: number;
  localWcu: number;
  /** The DynamoDB requests, in order. */
  dynamodb: string;
}

interface Phase {
  name: string;
  /** The request's answer, and the time until the worker had settled, from the request. */
  answerMs: number;
  seconds: number;
  itemsPerSecond: number;
  /** What was found afterwards, and whether it was everything. */
  checked: string;
  complete: boolean;
}

interface Units {
  rru: number;
  wru: number;
  localRcu: number;
  localWcu: number;
}

interface CostPhase {
  name: string;
  /** The request itself. */
  request: Units;
  /** The worker's requests, all of them, and how many of each operation. */
  worker: Units & { requests: Record<string, number>; itemsWritten: number };
  /** The worker's, per 1,000 items (documents and folders below the deleted folder). */
  per1000: { rru: number; wru: number; dollars: number };
}

export interface LifecycleResult {
  move: {
    documents: number;
    folders: number;
    big: MoveCase;
    empty: MoveCase;
    latencyRatio: number;
    /** The larger of the RRU and the WRU ratios. */
    capacityRatio: number;
    /** The worker's refresh of the depths and paths below the moved tree (sub folders only). */
    refresh: { folders: number; rru: number; wru: number; seconds: number };
  };
  bound: { documents: number; folders: number; phases: Phase[] };
  cost: { documents: number; folders: number; phases: CostPhase[] };
  /** What was not as it must be once the worker had settled (empty: nothing). */
  problems: string[];
  seedSeconds: number;
}

const sum = (recorded: readonly Recorded[], action: 'read' | 'write') =>
  recorded.reduce((total, r) => total + r.touched.filter((t) => t.action === action).reduce((units, t) => units + t.units, 0), 0);
const units = (recorded: readonly Recorded[]): Units => ({
  rru: sum(recorded, 'read'),
  wru: sum(recorded, 'write'),
  localRcu: round(
    recorded.reduce((total, r) => total + r.local.read, 0),
    1,
  ),
  localWcu: round(
    recorded.reduce((total, r) => total + r.local.write, 0),
    1,
  ),
});
const dollars = (u: { rru: number; wru: number }) =>
  (u.rru * prices.dynamodbReadPerMillionUnits + u.wru * prices.dynamodbWritePerMillionUnits) / 1e6;

export const lifecycle: Scenario = {
  name: 'lifecycle',
  title: 'folder life cycle: moving 10,000 documents vs an empty folder, the trash bound, the background work’s cost',
  // report.ts reads `lifecycle` (absent from results written before it existed).
  run: async (bench) => ({ lifecycle: await measureLifecycle(bench) }),
};

async function measureLifecycle(bench: Bench): Promise<LifecycleResult> {
  const { service, target, log } = bench;
  const started = performance.now();
  const big = await service.makeTree('big', BIG);
  const small = await service.makeTree('small', SMALL);
  await service.settled(SETTLE_MS); // their changes numbered into the feed
  const seedSeconds = (performance.now() - started) / 1000;
  log(
    `  made a tree of ${big.documents} documents in ${big.folders + 1} folders and one of ${small.documents} in ${small.folders + 1} ` +
      `in ${f(seedSeconds, 0)} s`,
  );

  // 1. Moves. Each folder goes back and forth between the two parents.
  const parentOf = new Map([
    [big.root, big.parents[0]],
    [big.empty, big.parents[0]],
  ]);
  const move = async (id: string) => {
    const to = parentOf.get(id) === big.parents[0] ? big.parents[1] : big.parents[0];
    const t0 = performance.now();
    const { status, body } = await send(target, { method: 'PUT', path: '/folder', body: { id, parentId: to } });
    const ms = performance.now() - t0;
    if (status !== 200) throw new Error(`PUT /folder (move): ${status} ${JSON.stringify(body)}`);
    parentOf.set(id, to);
    return ms;
  };
  const samples = new Map<string, number[]>([
    [big.root, []],
    [big.empty, []],
  ]);
  for (let round = -2; round < MOVES; round++) {
    for (const id of round % 2 === 0 ? [big.root, big.empty] : [big.empty, big.root]) {
      const ms = await move(id);
      await service.settled(SETTLE_MS);
      if (round >= 0) samples.get(id)!.push(ms);
    }
  }
  const recordMove = async (id: string) => {
    const runs: Units[] = [];
    let dynamodb = '';
    for (let i = 0; i < RECORDED; i++) {
      await service.startRecording();
      try {
        await move(id);
      } finally {
        const recorded = await service.stopRecording();
        runs.push(units(recorded));
        dynamodb = recorded.map((r) => r.operation).join(', ');
      }
      await service.settled(SETTLE_MS);
    }
    return { ...runs.reduce((least, run) => (run.rru + run.wru < least.rru + least.wru ? run : least)), dynamodb };
  };
  const moveCase = async (id: string, label: string): Promise<MoveCase> => {
    const s = samples.get(id)!;
    const { rru, wru, localRcu, localWcu, dynamodb } = await recordMove(id);
    return { label, p50: round(median(s), 3), max: round(Math.max(...s), 3), samples: s.length, rru, wru, localRcu, localWcu, dynamodb };
  };
  const bigMove = await moveCase(big.root, `with ${big.documents.toLocaleString('en')} documents below`);
  const emptyMove = await moveCase(big.empty, 'empty');
  // The background work a move of the tree leaves: the depth and path of each sub folder.
  await service.startRecording({ worker: true });
  const refreshStarted = performance.now();
  await move(big.root);
  await service.settled(SETTLE_MS);
  const refreshSeconds = (performance.now() - refreshStarted) / 1000;
  const refreshed = (await service.stopRecording()).filter((r) => r.worker);
  const moveResult: LifecycleResult['move'] = {
    documents: big.documents,
    folders: big.folders,
    big: bigMove,
    empty: emptyMove,
    latencyRatio: round(bigMove.p50 / emptyMove.p50, 3),
    capacityRatio: round(Math.max(bigMove.rru / emptyMove.rru, bigMove.wru / emptyMove.wru), 3),
    refresh: { folders: big.folders, ...pick(units(refreshed)), seconds: round(refreshSeconds, 2) },
  };
  log(
    `  move: p50 ${f(bigMove.p50)} ms with ${big.documents} documents below, ${f(emptyMove.p50)} ms empty (${f(moveResult.latencyRatio)}×); ` +
      `${bigMove.rru} RRU / ${bigMove.wru} WRU vs ${emptyMove.rru} / ${emptyMove.wru} (${f(moveResult.capacityRatio)}×)`,
  );

  // 2. The trash bound, on the big tree.
  const repository = big.repositoryId;
  const items = big.documents + big.folders;
  const phases: Phase[] = [];
  const problems: string[] = [];
  const timed = async (name: string, request: Request, status: number, check: () => Promise<Checked>) => {
    await service.settled(SETTLE_MS);
    const t0 = performance.now();
    const answer = await send(target, request);
    const answerMs = performance.now() - t0;
    if (answer.status !== status) throw new Error(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
    await service.settled(SETTLE_MS);
    const seconds = (performance.now() - t0) / 1000;
    const { complete, checked } = await check();
    const phase = {
      name,
      answerMs: round(answerMs, 1),
      seconds: round(seconds, 2),
      itemsPerSecond: round(items / seconds, 0),
      checked,
      complete,
    };
    phases.push(phase);
    log(
      `  ${name}: answered in ${f(answerMs, 0)} ms, settled after ${f(seconds, 1)} s: ${f(phase.itemsPerSecond, 0)} items/s; ${phase.checked}`,
    );
  };
  const trash = { method: 'DELETE', path: `/folder/${big.root}?recursive=true` } as const;
  const restore = { method: 'POST', path: `/${repository}/trash/${big.root}/restore` } as const;
  const purge = { method: 'DELETE', path: `/${repository}/trash/${big.root}` } as const;
  type Made = typeof big & { name: string };
  type Checked = { complete: boolean; checked: string };
  const trees = { big: { ...big, name: 'big' }, small: { ...small, name: 'small' } };
  /** Whether the deleted folder and everything below it carry a trash mark (`marked`) or none (`clear`). */
  const expect = async (want: 'marked' | 'clear', tree: Made = trees.big): Promise<Checked> => {
    const state = await service.treeState(tree.name);
    const below = state.folders[want] + state.documents[want];
    const complete = state.root[want] === 1 && state.folders[want] === tree.folders && state.documents[want] === tree.documents;
    if (!complete) problems.push(`the ${tree.name} tree, once the worker settled, not all ${want}: ${JSON.stringify(state)}`);
    return {
      complete,
      checked: `${complete ? 'all ' : ''}${below.toLocaleString('en')} of ${(tree.folders + tree.documents).toLocaleString('en')} below ${want}`,
    };
  };
  /** Whether the deleted folder and everything below it are gone, with nothing left in their partitions. */
  const gone = async (tree: Made = trees.big): Promise<Checked> => {
    const state = await service.treeState(tree.name, { leftovers: true });
    const left = tree.folders - state.folders.gone + tree.documents - state.documents.gone + 1 - state.root.gone;
    const complete = left === 0 && state.leftovers === 0;
    if (!complete) problems.push(`the ${tree.name} tree, once the worker settled, not all purged: ${JSON.stringify(state)}`);
    return {
      complete,
      checked: complete ? 'all gone, nothing left in their partitions' : `${left} items and ${state.leftovers} partition items left`,
    };
  };
  await timed('delete (to the trash)', trash, 204, () => expect('marked'));
  await timed('restore', restore, 200, () => expect('clear'));
  await timed('delete again', trash, 204, () => expect('marked'));
  await timed('purge', purge, 204, () => gone());

  // 3. The background work's cost, on the small tree.
  const costPhases: CostPhase[] = [];
  const smallItems = small.documents + small.folders;
  const recorded = async (name: string, request: Request, status: number) => {
    await service.settled(SETTLE_MS);
    await service.startRecording({ worker: true });
    let all: Recorded[];
    try {
      const answer = await send(target, request);
      if (answer.status !== status) throw new Error(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
      await service.settled(SETTLE_MS);
    } finally {
      all = await service.stopRecording();
    }
    const worker = all.filter((r) => r.worker);
    const requests: Record<string, number> = {};
    for (const r of worker) requests[r.operation] = (requests[r.operation] ?? 0) + 1;
    const w = units(worker);
    const per1000 = { rru: round((w.rru * 1000) / smallItems, 1), wru: round((w.wru * 1000) / smallItems, 1) };
    const phase: CostPhase = {
      name,
      request: units(all.filter((r) => !r.worker)),
      worker: { ...w, requests, itemsWritten: worker.reduce((n, r) => n + r.touched.filter((t) => t.action === 'write').length, 0) },
      per1000: { ...per1000, dollars: dollars(per1000) },
    };
    costPhases.push(phase);
    log(`  ${name} of ${smallItems} items: worker ${w.rru} RRU, ${w.wru} WRU (${per1000.rru} / ${per1000.wru} per 1,000 items)`);
  };
  const smallTrash: Request = { method: 'DELETE', path: `/folder/${small.root}?recursive=true` };
  await recorded('delete (to the trash)', smallTrash, 204);
  await expect('marked', trees.small);
  await recorded('restore', { method: 'POST', path: `/${small.repositoryId}/trash/${small.root}/restore` }, 200);
  await expect('clear', trees.small);
  await recorded('delete again', smallTrash, 204);
  costPhases.pop(); // the same as the first
  await recorded('purge', { method: 'DELETE', path: `/${small.repositoryId}/trash/${small.root}` }, 204);
  await gone(trees.small);

  return {
    move: moveResult,
    bound: { documents: big.documents, folders: big.folders, phases },
    cost: { documents: small.documents, folders: small.folders, phases: costPhases },
    problems,
    seedSeconds: round(seedSeconds, 1),
  };
}

const pick = ({ rru, wru }: Units) => ({ rru, wru });

/** The scenario's budgets, in the shape of budgets.ts. */
export function lifecycleBudgets(r: LifecycleResult) {
  const { move: m } = r;
  const line = (budget: string, ratio: number, measured: string) => ({
    budget,
    measured: `${f(ratio)}× (${measured})`,
    verdict: ratio <= LIFECYCLE_BUDGET ? ('met' as const) : ('missed' as const),
  });
  const documents = m.documents.toLocaleString('en');
  return [
    line(
      `PUT /folder (move) latency, ${documents} documents below ≤ ${LIFECYCLE_BUDGET}× an empty folder`,
      m.latencyRatio,
      `p50 ${f(m.big.p50)} vs ${f(m.empty.p50)} ms`,
    ),
    line(
      `PUT /folder (move) capacity, ${documents} documents below ≤ ${LIFECYCLE_BUDGET}× an empty folder`,
      m.capacityRatio,
      `${m.big.rru} RRU / ${m.big.wru} WRU vs ${m.empty.rru} / ${m.empty.wru}`,
    ),
    {
      budget: `Deleting, restoring and purging a folder with ${documents} documents below: everything below follows once the worker settles`,
      measured: r.bound.phases.map((p) => `${p.name} ${f(p.seconds, 1)} s (${p.itemsPerSecond} items/s)`).join(', '),
      verdict: r.problems.length === 0 ? ('met' as const) : ('missed' as const),
      ...(r.problems.length ? { why: r.problems.join('; ') } : {}),
    },
  ];
}

/** results.md's section (report.ts). */
export function lifecycleSection(r: LifecycleResult): string {
  const { move: m, bound: b, cost: c } = r;
  const n = (value: number) => value.toLocaleString('en');
  const purge = c.phases.find((p) => p.name === 'purge');
  return `## 9. Folder life cycle and the trash

A repository of its own in the bench's service: two folders side by side under its root, and in the first a tree of
${n(b.folders + 1)} folders (10 sub folders of 10 sub folders each) with ${n(b.documents)} documents of 1 KB (100 in each leaf), and an
empty folder; made with the store's own calls (documents in bulk, \`bench/seed.ts\`), a second tree of ${n(c.documents)} documents in
${c.folders} folders beside it, in ${f(r.seedSeconds, 0)} s, then the worker let catch up.

**Moving a folder.** \`PUT /folder\` with a new \`parentId\`, each folder back and forth between the two parents (so at the same
depth), one request at a time, the two folders taking turns, ${m.big.samples} moves each after two to warm up; after each move
the worker was let catch up (\`worker.settled()\`), so that neither folder is measured against the other's background work.
Latency is the caller's, from the runner; capacity is one move's, the least of ${RECORDED} recorded (\`bench/recorder.ts\`).

${table(
  ['Folder moved', 'p50 ms', 'max ms', 'moves', 'DynamoDB', 'RRU / WRU (AWS)', 'RCU / WCU (local)'],
  [m.big, m.empty].map((x) => [x.label, f(x.p50), f(x.max), x.samples, x.dynamodb, `${x.rru} / ${x.wru}`, `${x.localRcu} / ${x.localWcu}`]),
)}

Ratios ${n(m.documents)} documents below / empty: latency **${f(m.latencyRatio)}**, capacity **${f(m.capacityRatio)}** (the larger of the RRU
and WRU ratios). A move rewrites the folder and its entry, and asserts the target's chain of parents; what is below it
names its parent, not its place, so nothing below is read or written. What differs: the folder with sub folders also
starts the task that refreshes their depth and path (one more item in the transaction). In the background that
refresh took ${f(m.refresh.seconds, 1)} s for the ${n(m.refresh.folders)} sub folders (documents have no depth): ${n(m.refresh.rru)} RRU and ${n(m.refresh.wru)} WRU,
$${dollars(m.refresh).toFixed(5)} a move.

**The trash bound.** The tree deleted (\`DELETE /folder/{id}?recursive=true\`), restored (\`POST /{id}/trash/{itemId}/restore\`),
deleted again and purged (\`DELETE /{id}/trash/{itemId}\`); each time from the request until the worker had settled — every
record written so far handled and nothing more following from them (it looks every 50 ms) — then every item below
checked. Items: the ${n(b.documents)} documents and ${n(b.folders)} folders below the deleted one, ${n(b.documents + b.folders)} in all.
${
  r.problems.length
    ? `
**Not everything followed:**

${r.problems.map((p) => `- ${p}`).join('\n')}
`
    : ''
}
${table(
  ['Step', 'answered (ms)', 'settled after (s)', 'items / s', 'checked afterwards'],
  b.phases.map((p) => [p.name, f(p.answerMs, 1), f(p.seconds, 1), n(p.itemsPerSecond), p.checked]),
)}

From the answer on, the deleted folder is 404 and gone from its parent's listing, and nothing can be made in it; a
restored folder is back in its parent's listing at once. The table is how long what is below takes to follow (until
then a GET of it may still be 404 after a restore, and still answer after a delete: docs/api.md, Trash), on DynamoDB
Local (one writer, on a machine shared with the runner and the service): the bound docs/api.md leaves unmeasured. The
worker takes each sub folder as a task of its own, the tasks of a batch of stream records side by side, each step a
transaction of up to 48 marks (a purge: 32 entries, the documents' items by BatchWriteItem).

**The background work's cost**, on the tree of ${n(c.documents)} documents in ${c.folders} folders (${n(c.documents + c.folders)} items): every request the
worker made from the request until it settled, recorded and priced by AWS's billing rules as in §2 (a BatchWriteItem
item 1 WRU per KB, a transaction's 2 per KB); the worker's Lambda time and its reads of the stream (free to Lambda)
are left out. The request itself is the endpoint's (§2).

${table(
  ['Step', 'worker RRU / WRU', 'per 1,000 items RRU / WRU', '$ per 1,000 items', 'worker requests', 'items written', 'local RCU / WCU'],
  c.phases.map((p) => [
    p.name,
    `${n(p.worker.rru)} / ${n(p.worker.wru)}`,
    `${f(p.per1000.rru, 1)} / ${f(p.per1000.wru, 1)}`,
    `$${p.per1000.dollars.toFixed(5)}`,
    Object.entries(p.worker.requests)
      .map(([op, count]) => `${op} × ${count}`)
      .join(', '),
    n(p.worker.itemsWritten),
    `${n(p.worker.localRcu)} / ${n(p.worker.localWcu)}`,
  ]),
)}
${
  purge
    ? `
Purging 1,000 items costs **${f(purge.per1000.rru, 1)} RRU and ${f(purge.per1000.wru, 1)} WRU, $${purge.per1000.dollars.toFixed(5)}** on demand
(${usd(prices.dynamodbReadPerMillionUnits)} per million RRU, ${usd(prices.dynamodbWritePerMillionUnits)} per million WRU, \`bench/prices.ts\`): each document's items (the document
with its 1 KB content, its revision, its content item) found with one Query and deleted by BatchWriteItem (2 + 1 + 2
WRU), its entry removed in the step's transaction (2 WRU). Marking (and unmarking) reads each document (1 RRU: the
content is in the item) and updates it in the step's transaction (4 WRU: 2 per KB of a 1.3 KB item).
`
    : ''
}`;
}
