/**
 * The background worker on this machine: the same handler Lambda runs on the table's stream
 * (functions/worker/stream.ts), fed by the stream feeder, with its events (which go to
 * EventBridge on AWS) printed, and handed to whoever listens (tests).
 */
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { workerFunction } from '#functions/routes';
import { type ChangeEvent, setEventSink } from '#functions/worker/events';
import { localClient } from './dynamodb-local';
import type { LambdaHandler } from './lambda-event';
import { runAsFunction } from './permissions';
import { type StreamHandler, startStreamFeeder } from './stream-feeder';

export interface LocalWorker {
  /** Resolves once the worker has handled every record written so far, and what followed from them. */
  settled(timeoutMs?: number): Promise<void>;
  /** Calls `listener` with every change event published from now on; returns how to stop. */
  onEvent(listener: (event: ChangeEvent) => void): () => void;
  stop(): Promise<void>;
}

export async function startLocalWorker(options: {
  endpoint: string;
  tableName: string;
  dataDir: string;
  /** Keep the stream position in dataDir (a persistent database); else in memory. */
  persistent: boolean;
  loadHandler: (name: string) => Promise<LambdaHandler>;
  log: (line: string) => void;
  /** Print each published event on the log. */
  printEvents: boolean;
}): Promise<LocalWorker> {
  const listeners = new Set<(event: ChangeEvent) => void>();
  setEventSink(async (events) => {
    for (const event of events) {
      if (options.printEvents) options.log(`event ${event.DetailType} ${event.Detail}`);
      for (const listener of listeners) listener(event);
    }
  });
  const failures = join(options.dataDir, 'worker-failures.jsonl');
  const client = localClient(options.endpoint);
  const feeder = await startStreamFeeder(
    {
      endpoint: options.endpoint,
      tableName: options.tableName,
      // Held to the worker's IAM grants, as its role is on AWS.
      handler: async () => {
        const stream = (await options.loadHandler('worker/stream')) as unknown as StreamHandler;
        return (event) => runAsFunction(workerFunction, () => stream(event));
      },
      ...(options.persistent ? { checkpointFile: join(options.dataDir, 'stream-checkpoint.json') } : {}),
      // The on-failure destination: records the worker gave up on, for a person to look at.
      onFailure: async (records, reason) => {
        options.log(`worker: gave up on ${records.length} record(s), written to ${failures}: ${reason}`);
        await appendFile(failures, `${JSON.stringify({ at: new Date().toISOString(), reason, records })}\n`);
      },
      log: options.log,
    },
    client,
  ).finally(() => client.destroy());
  return {
    settled: (timeoutMs) => feeder.settled(timeoutMs),
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      await feeder.stop();
      setEventSink(undefined);
    },
  };
}
