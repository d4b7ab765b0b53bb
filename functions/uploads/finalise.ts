/**
 * The bucket's Object Created events (EventBridge, lib/stack/documents-stack.ts; locally the
 * emulator's notifications, lib/local/finaliser.ts): an upload's bytes are there, so it is
 * finished as `complete` would finish it, and a client that died after sending loses nothing.
 * A delivery that fails is retried (twice, within an hour), then left to the sweeper, which
 * finds the upload still open.
 */
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { HttpError } from '#core/errors';
import { logger } from '#core/logger';
import { finaliseObject } from '#core/use-cases/finish-upload';
import { observedInvocation } from '../worker/observability';

/** What S3 sends to EventBridge when an object is created (the fields used here). */
export type ObjectCreated = EventBridgeEvent<'Object Created', { bucket: { name: string }; object: { key: string; size?: number } }>;

export const handler = (event: ObjectCreated, context?: Context): Promise<void> => observedInvocation(context, () => finalise(event));

async function finalise(event: ObjectCreated): Promise<void> {
  const { key } = event.detail.object;
  try {
    await finaliseObject(key);
  } catch (error) {
    // The upload's own problem (a mismatch, a name taken): recorded on the upload; nothing to retry.
    if (error instanceof HttpError && error.status < 500) return;
    logger.error('finalise: failed; EventBridge retries, then the sweeper', { error: error as Error, key });
    throw error;
  }
}
