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
import { ConditionFailed, transactWrite } from '#core/db/client';
import { advanceTask, finishTask, readTask, type TaskStep, type TaskSteps } from '#core/items/task';
import { recordMetric } from '#core/metrics';

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
