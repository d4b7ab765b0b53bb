/** A closed-loop load generator for work done in-process (the direct-SDK baseline). */
import { type Latency, summarize } from './stats';

/**
 * `concurrency` workers each run `operation` back to back for `seconds`, as autocannon's
 * connections do against the service; latency is measured around each call.
 */
export async function closedLoop(operation: (worker: number) => Promise<void>, concurrency: number, seconds: number): Promise<Latency> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          await operation(worker);
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  return summarize(latencies, (performance.now() - started) / 1000, errors);
}
