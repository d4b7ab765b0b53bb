/**
 * Runs background tasks (core/store/tasks.ts) a step at a time. A step reads what it needs,
 * then commits its writes together with the task's progress in one transaction, guarded by the
 * task's step counter: a worker killed mid-task, or a retried batch, resumes from the last
 * committed step and never applies one twice. Each kind of task is a step function in
 * ./task-kinds/; a record of a task (its INSERT, or a MODIFY a step made) is a nudge to go on.
 * The stream's records are one way to be nudged; the sweeper (./sweeper.ts) is the other: every
 * step moves the task's `waitingSince` on, and a task that has waited too long is run from
 * there by the sweeper, with this same function.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { now } from '#core/ids';
import { recordMetric } from '#core/metrics';
import { ConditionFailed, db, remove, type TransactItem, tableName, transactWrite, update } from '#core/store/client';
import { taskKey } from '#core/store/keys';
import { sweepIndex, type Task, type TaskKind } from '#core/store/tasks';

/** What a step does: writes that commit with its progress, and where the task goes on from. */
export interface StepResult {
  writes?: Record<string, TransactItem>;
  /** `done`, or the state the next step starts from (merged into the task). */
  next: 'done' | { cursor?: string; phase?: string };
}

export type TaskStep<K extends TaskKind = TaskKind> = (task: Extract<Task, { kind: K }>) => Promise<StepResult>;
export type TaskSteps = { [K in TaskKind]: TaskStep<K> };

/** How long one invocation works on one task before leaving the rest to the next nudge. */
const BUDGET_MS = 10_000;
/** Steps whose writes keep failing a condition are read and tried again this many times. */
const STEP_ATTEMPTS = 6;

export async function runTask(taskId: string, steps: TaskSteps): Promise<void> {
  const deadline = Date.now() + BUDGET_MS;
  let failures = 0;
  while (Date.now() < deadline) {
    const task = await readTask(taskId);
    if (!task) return; // done already
    const step = steps[task.kind] as TaskStep;
    const result = await step(task);
    try {
      await transactWrite({ ...result.writes, task: result.next === 'done' ? finish(task) : advance(task, result.next) });
      failures = 0;
      if (result.next === 'done') {
        recordMetric('tasksCompleted');
        return;
      }
    } catch (error) {
      // Another worker moved the task on, or what the step read changed: read again.
      if (!(error instanceof ConditionFailed) || ++failures >= STEP_ATTEMPTS) throw error;
      recordMetric('tasksRetried');
    }
  }
}

async function readTask(taskId: string): Promise<Task | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: taskKey(taskId), ConsistentRead: true }));
  return Item as Task | undefined;
}

const stepIs = (task: Task) => ({ names: { '#step': 'step' }, values: { ':step': task.step } });

function advance(task: Task, next: { cursor?: string; phase?: string }): TransactItem {
  const { names, values } = stepIs(task);
  // The task has waited since this step: the sweeper leaves it alone while steps keep coming.
  const fields = { ...next, [sweepIndex.sortKey]: now() };
  const sets = ['#step = :next', ...Object.keys(fields).map((field) => `#${field} = :${field}`)];
  return update(
    taskKey(task.id),
    `SET ${sets.join(', ')}`,
    { ...names, ...Object.fromEntries(Object.keys(fields).map((field) => [`#${field}`, field])) },
    { ...values, ':next': task.step + 1, ...Object.fromEntries(Object.entries(fields).map(([field, value]) => [`:${field}`, value])) },
    '#step = :step',
  );
}

function finish(task: Task): TransactItem {
  const { names, values } = stepIs(task);
  return remove(taskKey(task.id), { expression: '#step = :step', names, values });
}
