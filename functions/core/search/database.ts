/**
 * The one port to the search database: `execute(sql, params)`. Deployed, the RDS Data API on the
 * stack's Aurora PostgreSQL cluster (./data-api.ts); on this machine, PGlite (lib/local/search-database.ts),
 * which refuses what the Data API refuses. SQL uses `$1`, `$2`… placeholders; parameters are
 * scalars only (the Data API has no array parameters: a list goes as one JSON text, `$1::jsonb`).
 *
 * An Aurora Serverless v2 cluster that auto-paused answers `DatabaseResumingException` while it
 * wakes (about 15 s, "Scaling to zero ACUs with automatic pause and resume", Aurora user guide):
 * a statement is retried with backoff for a while, then the request answers 503 with `Retry-After`.
 */
import { unavailable } from '../errors';
import { logger } from '../logger';

export type SqlValue = string | number | boolean | null;
export type Row = Record<string, unknown>;

export interface SqlPort {
  execute(sql: string, params: readonly SqlValue[]): Promise<Row[]>;
}

/** The names under which both adapters report a database that is waking up. */
export const RESUMING = 'DatabaseResumingException';

/** How long a statement keeps being retried while the database resumes, and what a 503 then tells the client. */
export const RESUME_WAIT_MS = 8_000;
export const RESUME_RETRY_AFTER_SECONDS = 15;

let port: SqlPort | undefined;
let portFactory: (() => Promise<SqlPort>) | undefined;

/** The database the functions of this process use (the local runtime sets PGlite; tests may set another). */
export function setSearchDatabase(replacement: SqlPort | undefined): void {
  port = replacement;
}

/**
 * Whether this process has a search index to write to: the local runtime's (set above), or the
 * deployed cluster (the stack gives the worker SEARCH_CLUSTER_ARN). A worker started without one
 * (a test that runs the worker alone) has nothing to index into.
 */
export const searchIndexConfigured = () => port !== undefined || portFactory !== undefined || Boolean(process.env.SEARCH_CLUSTER_ARN);

async function database(): Promise<SqlPort> {
  if (port) return port;
  // Loaded on first use, so that a bundle pays for the Data API client only where it runs.
  portFactory ??= async () => (await import('./data-api')).dataApiFromEnvironment();
  port = await portFactory();
  return port;
}

const isResuming = (error: unknown) => (error as { name?: string } | undefined)?.name === RESUMING;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs one statement; retries while the database resumes, then answers 503. */
export async function execute(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
  const db = await database();
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.execute(sql, params);
    } catch (error) {
      if (!isResuming(error)) throw error;
      const waited = Date.now() - started;
      if (waited >= RESUME_WAIT_MS) {
        logger.warn('search database still resuming', { waitedMs: waited });
        throw unavailable('The search index is starting; retry shortly.', RESUME_RETRY_AFTER_SECONDS);
      }
      // 250 ms, 500 ms, 1 s, 2 s… with jitter, within what is left.
      const backoff = Math.min(2 ** attempt * 250, 2_000) * (0.5 + Math.random() / 2);
      await sleep(Math.min(backoff, RESUME_WAIT_MS - waited));
    }
  }
}

/** A parameter list builder: `add(value)` gives its placeholder. User text only ever goes in here. */
export class Params {
  readonly values: SqlValue[] = [];
  add(value: SqlValue): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
