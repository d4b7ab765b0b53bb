/**
 * DynamoDB requests and consumed capacity of the request being served, for the access log
 * (cost per request is visible in production) and for tests and benchmarks.
 * AsyncLocalStorage keeps concurrent requests apart when the local runtime serves several.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface StoreMetrics {
  /** Requests sent to DynamoDB, retries included, by operation. */
  requests: string[];
  readCapacityUnits: number;
  writeCapacityUnits: number;
}

const current = new AsyncLocalStorage<StoreMetrics>();
const readOperations = new Set(['BatchGetItem', 'GetItem', 'Query', 'Scan', 'TransactGetItems']);

/** Runs `work` and reports what it cost in DynamoDB. */
export async function measured<T>(work: () => Promise<T>): Promise<{ result: T; metrics: StoreMetrics }> {
  const metrics: StoreMetrics = { requests: [], readCapacityUnits: 0, writeCapacityUnits: 0 };
  const result = await current.run(metrics, work);
  return { result, metrics };
}

export function currentMetrics(): StoreMetrics | undefined {
  return current.getStore();
}

/** What DynamoDB reports with ReturnConsumedCapacity TOTAL (a list for multi-table operations). */
type ConsumedCapacity = { CapacityUnits?: number };

export function recordRequest(command: string, consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): void {
  const metrics = current.getStore();
  if (!metrics) return;
  const operation = command.replace(/Command$/, '');
  metrics.requests.push(operation);
  // With ReturnConsumedCapacity TOTAL, DynamoDB reports only CapacityUnits: of the
  // operation's own kind (reads for reads, writes for writes).
  const units = [consumed ?? []].flat().reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
  if (readOperations.has(operation)) metrics.readCapacityUnits += units;
  else metrics.writeCapacityUnits += units;
}
