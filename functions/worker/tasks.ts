/**
 * Runs background tasks (core/items/task.ts) a step at a time. A step reads what it needs,
 * then commits its writes together with the task's progress in one transaction, guarded by the
 * task's step counter: a worker killed mid-task, or a retried batch, resumes from the last
 * committed step and never applies one twice. Each kind of task is a step function
 * (./task-steps.ts lists them, from core/use-cases/ and core/items/); a record of a task (its
 * INSERT, or a MODIFY a step made) is a nudge to go on. The stream's records are one way to be nudged; the sweeper (./sweeper.ts) is the other: every
 * step moves the task's `waitingSince` on, and a task that has waited too long is run from
 * there by the sweeper, with this same function.
 */
import type { Context } from 'aws-lambda';
import { ConditionFailed, transactWrite } from '#core/db/client';
import { advanceTask, finishTask, readTask, type TaskStep, type TaskSteps } from '#core/items/task';
import { recordMetric } from '#core/metrics';

/** How long one invocation works on one task before leaving the rest to the next nudge. */
const BUDGET_MS = 10_000;
/** BUDGET_MS; tests only (where vitest runs) may lower it with TASK_BUDGET_MS, to see a task go on over several invocations. */
function budgetMs(): number {
  const raw = process.env.TASK_BUDGET_MS;
  return raw && process.env.VITEST ? Number(raw) : BUDGET_MS;
}
/** Steps whose writes keep failing a condition are read and tried again this many times. */
const STEP_ATTEMPTS = 6;
/** Kept back from the invocation's remaining time, for the last step's commit: at most this, at most a quarter of it. */
const COMMIT_MARGIN_MS = 5_000;

/**
 * When an invocation's work must end so that it can still commit before Lambda cuts it off:
 * its remaining time (`getRemainingTimeInMillis`) less a margin. None without a context.
 */
export function workUntil(context: Pick<Context, 'getRemainingTimeInMillis'> | undefined): number | undefined {
  if (!context) return undefined;
  const remaining = context.getRemainingTimeInMillis();
  return Date.now() + remaining - Math.min(COMMIT_MARGIN_MS, remaining / 4);
}

/** Runs a task's steps for one budget (BUDGET_MS, and never past `until`: the invocation's, `workUntil`). */
export async function runTask(taskId: string, steps: TaskSteps, until = Number.POSITIVE_INFINITY): Promise<void> {
  const deadline = Math.min(Date.now() + budgetMs(), until);
  let failures = 0;
  while (Date.now() < deadline) {
    const task = await readTask(taskId);
    if (!task) return; // done already
    const step = steps[task.kind] as TaskStep;
    const result = await step(task, { until: deadline });
    try {
      await transactWrite({ ...result.writes, task: result.next === 'done' ? finishTask(task) : advanceTask(task, result.next) });
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
