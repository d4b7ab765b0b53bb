/**
 * Numbers each repository's changes into its feed. A write records its change as a pending
 * item in the repository's feed partition (core/items/change.ts); the stream delivers those
 * in commit order (one partition key), and this gives them consecutive sequence numbers, in
 * that order, in transactions that also remove the pending items: each change gets exactly one
 * number, a retried batch skips what it already numbered, and a gap in the numbers can only
 * mean the feed no longer keeps those changes (410 for a cursor before it).
 *
 * A stream record can be lost (given up on after the mapping's retries). The pending item is
 * not: it stays in its partition, and in the sweep index, until it is numbered. So numbering
 * never trusts the batch alone. It reads the partition's pending items written up to the batch's
 * first (their keys sort by the write's time: one strongly consistent Query of a range, usually
 * just that first one), and numbers ahead of it those still waiting whose records were lost (an
 * item of the batch, or waiting past the sweeper's grace); and the sweeper
 * (./sweeper.ts) numbers, with the same code, the changes of a repository whose stream has
 * gone quiet (`sweepFeed`). Order among changes numbered without their records is by the time
 * the write recorded (`at`), and each item's changes always go by version.
 */
import { ConditionFailed, deleteItems, getItems, transactWrite } from '#core/db/client';
import { lastSequence, numberingSteps, type PendingChange, pendingChanges, pendingWrittenBy } from '#core/items/change';
import { sweeping } from './delivery';

/** Changes per transaction: three items each (numbered change, pending removed) plus the counter and a check. */
const PER_TRANSACTION = 32;

/**
 * Numbers a run of pending changes the stream delivered for one repository (in stream order,
 * which is commit order), after any change of the repository still pending from before them.
 */
export async function sequenceChanges(repositoryId: string, run: readonly PendingChange[]): Promise<void> {
  if (run.length === 0) return;
  const first = run.reduce((earliest, p) => (p.change.at < earliest ? p.change.at : earliest), run[0]!.change.at);
  // The pending changes written up to the run's first (keys sort by time): normally the first
  // itself; more only where records were lost (or a slow write committed late).
  const upTo = pendingWrittenBy(first);
  const present = await pendingChanges(repositoryId, upTo);
  const inRun = new Set(run.map((p) => p.key.SK));
  // Of those, only the changes whose records were lost go first: an item of the run (its
  // versions must keep their order), or one waiting past the sweeper's grace. A younger one of
  // another item is a write that started before the run's first but committed after it (a
  // transaction retried through conflicts): its own record follows, and the feed keeps commit order.
  const itemsInRun = new Set(run.map(itemOf));
  const lostBy = new Date(Date.now() - sweepGraceSeconds() * 1000).toISOString();
  const before = byTime(present.filter((p) => !inRun.has(p.key.SK) && (itemsInRun.has(itemOf(p)) || p.change.at <= lostBy)));
  // What a retried batch already numbered is no longer there (known for keys in the range read;
  // the others are found out by the numbering's conditions).
  const presentKeys = new Set(present.map((p) => p.key.SK));
  const stillPending = run.filter((p) => p.key.SK > upTo || presentKeys.has(p.key.SK));
  await numberInOrder(repositoryId, itemsByVersion([...before, ...stillPending]));
}

/**
 * The sweeper's part: numbers every change of the repository written at or before `cutoff`
 * that is still pending (its stream record lost or late), oldest first. Safe beside the worker:
 * a change numbered by one is skipped by the other.
 */
export async function sweepFeed(repositoryId: string, cutoff: string): Promise<number> {
  const due = byTime((await pendingChanges(repositoryId, pendingWrittenBy(cutoff))).filter((p) => p.change.at <= cutoff));
  await numberInOrder(repositoryId, itemsByVersion(due));
  return due.length;
}

const itemOf = (p: PendingChange) => `${p.change.kind}:${p.change.id}`;

/** When a waiting change is presumed lost: the sweeper's grace (SWEEP_GRACE_SECONDS locally, as the local sweeper reads it). */
function sweepGraceSeconds(): number {
  const local = Number(process.env.SWEEP_GRACE_SECONDS);
  return process.env.SWEEP_GRACE_SECONDS !== undefined && Number.isFinite(local) && local >= 0 ? local : sweeping.graceSeconds;
}

/** Oldest first by the write's time (`at`); a stable sort keeps ties as they were. */
const byTime = (changes: readonly PendingChange[]) =>
  [...changes].sort((a, b) => (a.change.at < b.change.at ? -1 : a.change.at > b.change.at ? 1 : 0));

/**
 * The same changes, with each item's changes put in version order in the places they hold:
 * clocks of different writers may disagree by a little, versions never do.
 */
export function itemsByVersion(changes: readonly PendingChange[]): PendingChange[] {
  const places = new Map<string, number[]>();
  changes.forEach((p, i) => {
    if (typeof p.change.version !== 'number') return;
    const item = itemOf(p);
    places.set(item, [...(places.get(item) ?? []), i]);
  });
  const ordered = [...changes];
  for (const indices of places.values()) {
    if (indices.length < 2) continue;
    const byVersion = indices.map((i) => changes[i]!).sort((a, b) => (a.change.version as number) - (b.change.version as number));
    indices.forEach((place, j) => {
      ordered[place] = byVersion[j]!;
    });
  }
  return ordered;
}

async function numberInOrder(repositoryId: string, pending: readonly PendingChange[]): Promise<void> {
  let remaining = [...pending];
  if (remaining.length === 0) return;
  let seq = await lastSequence(repositoryId);
  while (remaining.length > 0) {
    const chunk = remaining.slice(0, PER_TRANSACTION);
    try {
      await transactWrite(numberingSteps(repositoryId, chunk, seq));
      seq += chunk.length;
      remaining = remaining.slice(chunk.length);
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      if (error.failed.has('repository')) return deleteItems(remaining.map((p) => p.key)); // deleted: its feed goes with it
      // Numbered meanwhile (an earlier attempt, the sweeper, the worker): keep only what is still pending.
      const lookup = await getItems(remaining.map((p) => p.key));
      remaining = remaining.filter((p) => lookup(p.key) !== undefined);
      seq = await lastSequence(repositoryId);
    }
  }
}
