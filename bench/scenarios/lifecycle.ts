/**
 * Folder life cycle and the trash, on a repository of its own in the bench's service:
 *
 * 1. Moving a folder with 10,000 documents below it (10 × 10 folders, 100 documents in each
 *    leaf) against moving an empty folder, between two folders side by side (so at the same
 *    depth), one request at a time, the two taking turns, the background worker let catch up
 *    after each move. What is below a folder is neither read nor written by a move: the
 *    latency and the capacity (the least of 3 recorded moves) must be the same.
 * 2. The trash bound: the tree deleted (`?recursive=true`), restored, deleted again and purged;
 *    each time from the request until the worker has settled, then every item below checked:
 *    marked, unmarked, or gone with nothing left in its partitions.
 */
import { median, type Request, round, send } from '../load';
import { f, n } from '../markdown';
import { operations, unitsOf } from '../recorder';
import type { LifecycleResult, MoveCase } from '../results';
import type { Scenario } from '../scenario';

const MOVES = 15;
/** The longest the worker may take over one step. */
const SETTLE_MS = 900_000;

export const lifecycle: Scenario = {
  name: 'lifecycle',
  title: 'folder life cycle: moving 10,000 documents vs an empty folder, the trash bound',
  async run({ service, target, log }) {
    const started = performance.now();
    const tree = await service.makeTree('big', { levels: 2, fanOut: 10, perLeaf: 100 });
    await service.settled(SETTLE_MS); // their changes numbered into the feed
    const seedSeconds = (performance.now() - started) / 1000;
    log(`  made a tree of ${tree.documents} documents in ${tree.folders + 1} folders in ${f(seedSeconds, 0)} s`);

    // 1. Moves: each folder back and forth between the two parents, the worker settled after each.
    const parentOf = new Map([tree.root, tree.empty].map((id) => [id, tree.parents[0]]));
    const move = async (id: string) => {
      const to = parentOf.get(id) === tree.parents[0] ? tree.parents[1] : tree.parents[0];
      const t0 = performance.now();
      const { status, body } = await send(target, { method: 'PUT', path: '/folder', body: { id, parentId: to } });
      if (status !== 200) throw new Error(`PUT /folder (move): ${status} ${JSON.stringify(body)}`);
      const ms = performance.now() - t0;
      parentOf.set(id, to);
      await service.settled(SETTLE_MS); // neither folder measured against the other's background work
      return ms;
    };
    const samples = new Map([tree.root, tree.empty].map((id) => [id, [] as number[]]));
    for (let turn = -2; turn < MOVES; turn++) {
      for (const id of turn % 2 === 0 ? [tree.root, tree.empty] : [tree.empty, tree.root]) {
        const ms = await move(id);
        if (turn >= 0) samples.get(id)!.push(ms);
      }
    }
    const moveCase = async (id: string, label: string): Promise<MoveCase> => {
      const runs = [];
      for (let i = 0; i < 3; i++) {
        await service.startRecording(); // the worker's requests are not recorded
        await move(id);
        const recorded = await service.stopRecording();
        runs.push({ ...unitsOf(recorded), dynamodb: operations(recorded) });
      }
      const s = samples.get(id)!;
      const least = runs.reduce((a, b) => (b.rru + b.wru < a.rru + a.wru ? b : a));
      return { label, p50: round(median(s), 3), max: round(Math.max(...s), 3), samples: s.length, ...least };
    };
    const big = await moveCase(tree.root, `with ${n(tree.documents)} documents below`);
    const empty = await moveCase(tree.empty, 'empty');
    const latencyRatio = round(big.p50 / empty.p50, 3);
    const capacityRatio = round(Math.max(big.rru / empty.rru, big.wru / empty.wru), 3);
    log(`  move: p50 ${f(big.p50)} ms with ${tree.documents} documents below, ${f(empty.p50)} ms empty; capacity ${f(capacityRatio)}×`);

    // 2. The trash bound: each step timed until the worker settled, then everything below checked.
    const items = tree.documents + tree.folders;
    const phases: LifecycleResult['bound']['phases'] = [];
    const problems: string[] = [];
    const step = async (name: string, request: Request, status: number, want: 'marked' | 'clear' | 'gone') => {
      await service.settled(SETTLE_MS);
      const t0 = performance.now();
      const answer = await send(target, request);
      const answerMs = performance.now() - t0;
      if (answer.status !== status) throw new Error(`${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
      await service.settled(SETTLE_MS);
      const seconds = (performance.now() - t0) / 1000;
      const state = await service.treeState('big', { leftovers: want === 'gone' });
      const below = state.folders[want] + state.documents[want];
      const complete = state.root[want] === 1 && below === items && state.leftovers === 0;
      if (!complete) problems.push(`once the worker settled, not all ${want}: ${JSON.stringify(state)}`);
      const checked = `${complete ? 'all ' : ''}${n(below)} of ${n(items)} below ${want}`;
      phases.push({
        name,
        answerMs: round(answerMs, 1),
        seconds: round(seconds, 2),
        itemsPerSecond: round(items / seconds, 0),
        checked,
        complete,
      });
      log(`  ${name}: answered in ${f(answerMs, 0)} ms, settled after ${f(seconds, 1)} s; ${checked}`);
    };
    const trash: Request = { method: 'DELETE', path: `/folder/${tree.root}?recursive=true` };
    await step('delete (to the trash)', trash, 204, 'marked');
    await step('restore', { method: 'POST', path: `/${tree.repositoryId}/trash/${tree.root}/restore` }, 200, 'clear');
    await step('delete again', trash, 204, 'marked');
    await step('purge', { method: 'DELETE', path: `/${tree.repositoryId}/trash/${tree.root}` }, 204, 'gone');
    const { documents, folders } = tree;
    const moved = { documents, folders, big, empty, latencyRatio, capacityRatio };
    return { lifecycle: { move: moved, bound: { documents, folders, phases }, problems, seedSeconds: round(seedSeconds, 1) } };
  },
};
