/**
 * Which statuses the end-to-end tests asserted, apart from the ones they merely received. The
 * completeness check (test/completeness/routes.test.ts) counts a route's status as covered only
 * when a test pinned it: a status a test tolerated among others (`expect([200, 404]).toContain(…)`),
 * or a 503 a fixture retried away, received but never asserted, does not count.
 *
 * A status counts as asserted when:
 * - a passing `expect(res.status).toBe(N)` (or `toEqual`, `toStrictEqual`, not negated) read it
 *   from the answer: the answer's `status` notes each read (watchStatus), and the matcher takes
 *   the latest read of the same status in the same synchronous step (the reads are forgotten at
 *   the next microtask, so a status read earlier and compared later does not count);
 * - `expect(responses.map((r) => r.status)).toEqual([N, M, …])`: each element, read in order;
 * - a helper that throws on any other status took it (`ensure(res, N)`: markAsserted).
 * A status seen only in a condition (`if (res.status === 503) retry`), in `toContain`, or in a
 * count of a race, is not asserted.
 */
import { chai } from 'vitest';

export interface Answer {
  /** `GET /{id}`, as contract.ts names the operation. */
  operation: string;
  status: number;
}

/** `GET /{id}` → the statuses some test of this process asserted it answered with. */
export const assertedStatuses = new Map<string, Set<number>>();

const answerOf = new WeakMap<object, Answer>();

/** The statuses read since the last microtask, oldest first. */
let reads: Answer[] = [];
let forgetting = false;

function noteRead(answer: Answer): void {
  reads.push(answer);
  if (forgetting) return;
  forgetting = true;
  queueMicrotask(() => {
    reads = [];
    forgetting = false;
  });
}

/** Records that a test asserted this answer's status. */
export function markAsserted(response: object): void {
  const answer = answerOf.get(response);
  if (answer) mark(answer);
}

/** Gives `target` a `status` (the answer's) that notes each read, and ties it to the answer. */
export function watchStatus<T extends object>(target: T, answer: Answer): T {
  answerOf.set(target, answer);
  Object.defineProperty(target, 'status', {
    get() {
      noteRead(answer);
      return answer.status;
    },
    enumerable: true,
    configurable: true,
  });
  return target;
}

/** The answer a watched object stands for (read without noting it). */
export const watchedAnswer = (target: object): Answer | undefined => answerOf.get(target);

const isStatus = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599;

function mark(answer: Answer): void {
  const statuses = assertedStatuses.get(answer.operation) ?? new Set<number>();
  assertedStatuses.set(answer.operation, statuses.add(answer.status));
}

/** After a passing equality matcher on `actual`: the reads it compared, if it compared statuses. */
function noteAsserted(actual: unknown): void {
  if (isStatus(actual)) {
    const index = reads.findLastIndex((read) => read.status === actual);
    if (index >= 0) mark(reads.splice(index, 1)[0]!);
    return;
  }
  if (!Array.isArray(actual) || actual.length === 0 || !actual.every(isStatus)) return;
  // `answers.map((r) => r.status)`: the last reads, one for each element, in order.
  const last = reads.slice(-actual.length);
  if (last.length === actual.length && last.every((read, i) => read.status === actual[i])) {
    for (const read of last) mark(read);
    reads.splice(-actual.length);
  }
}

chai.use((chai, utils) => {
  for (const name of ['toBe', 'toEqual', 'toStrictEqual']) {
    utils.overwriteMethod(
      chai.Assertion.prototype,
      name,
      (original: (...args: unknown[]) => unknown) =>
        function (this: object, ...args: unknown[]) {
          const result = original.apply(this, args);
          // It passed (a failing matcher throws); `expect.soft` records a failure without throwing.
          if (!utils.flag(this, 'negate') && !utils.flag(this, 'soft')) noteAsserted(utils.flag(this, 'object'));
          return result;
        },
    );
  }
});
