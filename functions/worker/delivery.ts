/**
 * How stream records reach the worker, and how often the sweeper looks for work they did not
 * finish: the one place for these numbers. The CDK stack (lib/stack/background-worker.ts)
 * configures the event source mapping, the schedule and the reserved concurrency from them;
 * the local stream feeder (lib/local/stream-feeder.ts) and the local sweeper timer
 * (lib/local/worker.ts) read the same ones. The reasons are in docs/operations.md.
 *
 * The principle: a stream record is a nudge, not the work. The work is in the table (a task
 * item, a pending change, a trash record), and the sweeper (./sweeper.ts) finds what has waited
 * too long and drives it with the same code. So the stream's retry budget is chosen for
 * latency and for not blocking a shard, never for not losing work.
 */

export const streamDelivery = {
  batchSize: 100,
  maxBatchingWindowSeconds: 1,
  /** Records of one partition key stay in order across the parallel batches of a shard. */
  parallelizationFactor: 4,
  bisectBatchOnError: true,
  reportBatchItemFailures: true,
  /**
   * Retries of a failing batch (bisections included: each half is a retry). Lambda does not
   * document the interval between retries, so the count bounds a poison record that fails
   * fast (one record that always throws holds its shard for at most this many attempts);
   * the age below bounds the time a long outage holds it. 7 halvings isolate one record
   * of a batch of 100; the rest is room for throttling and conflicts to pass.
   */
  retryAttempts: 30,
  /**
   * A record older than this is given up on (sent to the failure queue) instead of retried:
   * one hour. By then the sweeper (every SWEEP_INTERVAL, for work waiting longer than
   * SWEEP_GRACE) has long taken the work over; retrying further would only keep the records
   * behind it on the same shard waiting. Lambda's range: 60 s to 7 days; the stream keeps
   * records 24 hours.
   */
  maxRecordAgeSeconds: 3_600,
} as const;

export const sweeping = {
  /** How often the sweeper runs (an EventBridge schedule on AWS, a timer locally). */
  intervalMinutes: 5,
  /**
   * Work is the sweeper's once it has waited this long: a task not advanced, a change not
   * numbered. Far above the stream's normal delay (a second) and a task step (seconds), so a
   * healthy worker and the sweeper seldom meet; when they do, both are idempotent.
   */
  graceSeconds: 300,
  /** A sweep stops starting work after this long, leaving the rest to the next one (its function's timeout is longer). */
  budgetSeconds: 240,
} as const;

/**
 * Reserved concurrency (docs/operations.md): the stream mapping runs at most
 * `parallelizationFactor` batches per shard at once; a new table has one or two shards, so 8
 * covers two shards at full parallelism, and a burst of API calls cannot take them. More
 * shards (a table past a few thousand writes a second) then queue, which raises IteratorAge
 * (alarmed) before anything is lost. The sweeper needs one: two sweeps at once would only
 * race each other.
 */
export const reservedConcurrency = { worker: 8, sweeper: 1 } as const;
