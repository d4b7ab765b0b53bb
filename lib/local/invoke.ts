/**
 * A Lambda invocation on this machine, as Lambda runs one: the handler gets a context whose
 * `getRemainingTimeInMillis()` counts down its function's deployed timeout (lib/function-settings.ts,
 * the stack's), runs held to the function's grants (./permissions.ts), and is over when the
 * timeout passes. Lambda then ends it with "Task timed out after N seconds", an invocation
 * error (https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html); here the
 * caller gets `FunctionTimedOut` and the handler's result, whenever it comes, is discarded. Each
 * trigger treats it as AWS's does: the stream mapping retries and bisects (./stream-feeder.ts),
 * EventBridge's asynchronous invocation retries (./finaliser.ts), the next schedule is the
 * sweeper's retry (./worker.ts), API Gateway answers 500 (./gateway.ts).
 *
 * Local handlers share one process, so a timed-out handler cannot be frozen as Lambda freezes
 * it: it runs on, unobserved. Code that budgets its work with `getRemainingTimeInMillis()`
 * stops itself in time, as it must on AWS; code that does not fails here as there.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { memorySizeOf, timeoutSecondsOf } from '#lib/function-settings';
import { buildContext } from './lambda-event';
import { type DeclaredFunction, runAsFunction } from './permissions';

/** The invocation ran past its function's timeout: what Lambda reports as `Task timed out after N seconds`. */
export class FunctionTimedOut extends Error {
  constructor(
    readonly functionName: string,
    readonly timeoutMs: number,
  ) {
    super(`${functionName}: Task timed out after ${(timeoutMs / 1_000).toFixed(2)} seconds`);
    this.name = 'FunctionTimedOut';
  }
}

/**
 * The timeout of the function named `name`, in ms: its deployed one. Tests only (where vitest
 * runs) may lower it: `LOCAL_FUNCTION_TIMEOUTS_MS='{"Worker":1500}'`, so a test sees a function cut
 * off without waiting two minutes. `npm start` and the deployed stack always use the settings.
 */
export function timeoutMsOf(name: string): number {
  const raw = process.env.LOCAL_FUNCTION_TIMEOUTS_MS;
  if (raw && process.env.VITEST) {
    const lowered = (JSON.parse(raw) as Record<string, unknown>)[name];
    if (typeof lowered === 'number' && lowered > 0) return lowered;
  }
  return timeoutSecondsOf(name) * 1_000;
}

/** The context Lambda gives an invocation of `fn`: its memory, and the time left before its timeout. */
export function functionContext(fn: DeclaredFunction, timeoutMs = timeoutMsOf(fn.name), requestId: string = randomUUID()): Context {
  return { ...buildContext(fn.name, requestId, timeoutMs), memoryLimitInMB: String(memorySizeOf(fn.name)) };
}

/** Invokes `handler` as `fn` with `event`: its answer, or FunctionTimedOut once its timeout has passed without one. */
export function invokeFunction<E, R>(
  fn: DeclaredFunction,
  handler: (event: E, context: Context) => R | Promise<R>,
  event: E,
  options: { timeoutMs?: number; context?: Context } = {},
): Promise<R> {
  const timeoutMs = options.timeoutMs ?? timeoutMsOf(fn.name);
  const context = options.context ?? functionContext(fn, timeoutMs);
  return new Promise<R>((resolve, reject) => {
    let over = false;
    const timer = setTimeout(() => {
      over = true;
      reject(new FunctionTimedOut(fn.name, timeoutMs));
    }, timeoutMs);
    const settle = (done: () => void) => {
      if (over) return; // past the timeout: Lambda would have ended the invocation, its answer goes nowhere
      clearTimeout(timer);
      done();
    };
    try {
      Promise.resolve(runAsFunction(fn, () => handler(event, context))).then(
        (result) => settle(() => resolve(result)),
        (error: unknown) => settle(() => reject(error)),
      );
    } catch (error) {
      settle(() => reject(error));
    }
  });
}
