import { HttpError } from '#core/errors';

/** 'ok' when `run` returns, else the status of the HttpError it throws (anything else rethrows). */
export function statusOf(run: () => unknown): number | 'ok' {
  try {
    run();
    return 'ok';
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
}

/** 'ok' when `promise` resolves, else the status of the HttpError it rejects with (anything else rethrows). */
export async function settledStatus(promise: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
}

/** A problem's `type` for an error kind, as the contract spells it. */
export const problemOf = (kind: string) => `urn:problem-type:documents:${kind}`;
