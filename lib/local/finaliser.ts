/**
 * The bucket's Object Created events on this machine: each of the emulator's notifications
 * (./s3.ts) becomes the EventBridge event S3 sends on AWS, handed to the same finalising function
 * (functions/uploads/finalise.ts), held to its grants and its timeout (`finaliserFunction`, ./invoke.ts), the way the stack's
 * rule delivers it: a delivery that fails is tried twice more, then dropped. What is dropped, and
 * any event lost with the process, the sweeper finds: the upload is still open in the table
 * (functions/core/use-cases/uploads.ts, sweepUpload).
 */
import { randomUUID } from 'node:crypto';
import type { Context, S3Event, S3EventRecord } from 'aws-lambda';
import { finaliserFunction } from '#functions/routes';
import type { ObjectCreated } from '#functions/uploads/finalise';
import { invokeFunction } from './invoke';
import type { LambdaHandler } from './lambda-event';
import type { LocalS3 } from './s3';

/** The rule target's retry policy: two retries (AWS backs off over minutes; here seconds). */
const RETRIES = 2;
const RETRY_DELAY_MS = 1_000;

export interface LocalFinaliser {
  /** Resolves when every notification so far has been handled (or dropped). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export function startLocalFinaliser(options: {
  s3: Pick<LocalS3, 'onObjectCreated'>;
  loadHandler: (name: string) => Promise<LambdaHandler>;
  log: (line: string) => void;
}): LocalFinaliser {
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const invoke = async (event: ObjectCreated) => {
    const handler = (await options.loadHandler(finaliserFunction.handler)) as unknown as (
      event: ObjectCreated,
      context: Context,
    ) => Promise<void>;
    for (let attempt = 0; ; attempt++) {
      try {
        // Under its grants and its timeout (./invoke.ts): an invocation cut off is retried like a failed one.
        await invokeFunction(finaliserFunction, handler, event);
        return;
      } catch (error) {
        if (attempt >= RETRIES || stopped) {
          options.log(
            `finaliser: dropped an ObjectCreated event after ${attempt + 1} attempt(s) (the sweeper takes the upload over): ${String(error)}`,
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * (attempt + 1)));
      }
    }
  };
  const unsubscribe = options.s3.onObjectCreated((event: S3Event) => {
    if (stopped) return;
    for (const record of event.Records) {
      const running = invoke(objectCreated(record)).finally(() => inFlight.delete(running));
      inFlight.add(running);
    }
  });
  return {
    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    async stop() {
      stopped = true;
      unsubscribe();
      await Promise.all([...inFlight]);
    },
  };
}

/** The EventBridge event S3 sends for a created object (its key not URL-encoded, unlike a notification's). */
function objectCreated(record: S3EventRecord): ObjectCreated {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Object Created',
    source: 'aws.s3',
    account: '000000000000',
    time: record.eventTime,
    region: record.awsRegion,
    resources: [`arn:aws:s3:::${record.s3.bucket.name}`],
    detail: {
      bucket: { name: record.s3.bucket.name },
      object: { key: decodeURIComponent(record.s3.object.key.replace(/\+/g, ' ')), size: record.s3.object.size },
    },
  };
}
