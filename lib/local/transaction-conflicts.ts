/**
 * Conflict mode for DynamoDB Local: what DynamoDB does to requests that overlap in time on one
 * item, which DynamoDB Local (one SQLite writer, everything in order) never does.
 *
 * DynamoDB documents these conflicts (Developer Guide, "Transaction conflict handling"):
 * - a PutItem, UpdateItem or DeleteItem on an item that an ongoing TransactWriteItems includes
 *   fails with `TransactionConflictException`;
 * - a TransactWriteItems that includes an item of another ongoing TransactWriteItems (or
 *   TransactGetItems) is cancelled: `TransactionCanceledException`, one reason per action in
 *   request order, `TransactionConflict` on the items in conflict and `None` on the others;
 * - a TransactGetItems that includes an item of an ongoing TransactWriteItems, BatchWriteItem,
 *   PutItem, UpdateItem or DeleteItem is cancelled the same way;
 * - reads (GetItem, BatchGetItem, Query, Scan) never conflict.
 * A ConditionCheck counts as including its item. A retry of an ongoing TransactWriteItems (same
 * ClientRequestToken) gets `TransactionInProgressException`, as on DynamoDB; a retry of one that
 * committed (or may have) is answered by its token alone, before any conflict, for 10 minutes:
 * success, or `IdempotentParameterMismatchException` for other items. DynamoDB Local keeps the
 * tokens and answers so itself, so such a retry goes straight to it, holding nothing.
 *
 * The proxy (commit-barrier.ts) asks `admit()` when a request arrives, before sending it on: the
 * request is refused here, never half-applied, or it holds its items until its answer has gone
 * back (for a transaction, until it is known committed). "Overlapping in time" is therefore
 * "arrived while the other was being served", the same window DynamoDB's transaction
 * coordinator has (from the transaction's start to its commit). Optionally `latencyMs` delays
 * every admitted request before it is sent on, its items held meanwhile: DynamoDB's own
 * transaction latency (about 10–20 ms, against DynamoDB Local's few milliseconds), or an
 * overlap made certain in a test.
 */
import { randomUUID } from 'node:crypto';

/** The key attribute names of a table, in order (partition, then sort). */
export type KeySchemaOf = (table: string) => Promise<readonly string[]>;

export interface ConflictOptions {
  /** Each request that holds items waits this long (ms) before it is sent on, holding them. Default 0. */
  latencyMs?: number;
}

/**
 * How a request passed on ended, as the proxy saw it: never sent (its client had left), answered
 * 200 or another status, or unknown (connection lost, no answer in time: it may have been applied).
 */
export type Outcome = 'not sent' | 'succeeded' | 'failed' | 'unknown';

/**
 * What the proxy does with a request: send it on after `delayMs` (and call `release` with its
 * outcome once it is over), or answer it.
 */
export type Admission =
  | { pass: true; delayMs: number; release: (outcome?: Outcome) => void }
  | { pass: false; status: number; headers: Record<string, string | number>; body: string };

type HoldKind = 'transaction' | 'write' | 'transactionRead';

const PREFIX = 'DynamoDB_20120810.';
const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
const CONFLICT_MESSAGE = 'Transaction is ongoing for the item';
const TYPE_PREFIX = 'com.amazonaws.dynamodb.v20120810#';
/** How long DynamoDB answers a TransactWriteItems' ClientRequestToken by itself (API reference). */
const TOKEN_WINDOW_MS = 10 * 60_000;
/** At most this many tokens kept (a retry comes within seconds; a bench's burst must not fill memory). */
const TOKENS_KEPT = 100_000;
const PASS: Admission = { pass: true, delayMs: 0, release: () => {} };

type AttributeMap = Record<string, unknown>;
interface TransactAction {
  TableName?: string;
  Key?: AttributeMap;
  Item?: AttributeMap;
}

/** Counts of the requests in flight that hold each item (`table` NUL `key`). */
export class TransactionConflicts {
  private readonly holds = new Map<string, Record<HoldKind, number>>();
  /** Tokens of the transactions in flight. */
  private readonly tokens = new Set<string>();
  /** Tokens of transactions that committed or may have, with when DynamoDB forgets them (insertion order). */
  private readonly committedTokens = new Map<string, number>();
  /** Requests refused, by kind (for tests and the bench). */
  readonly refused = { transactions: 0, writes: 0, transactionReads: 0 };
  private readonly latencyMs: number;

  constructor(
    private readonly keySchemaOf: KeySchemaOf,
    options: ConflictOptions = {},
  ) {
    this.latencyMs = options.latencyMs ?? 0;
  }

  /** Whether a request with this X-Amz-Target needs its body read before it is sent on. */
  static concerns(target: string | undefined): boolean {
    if (!target?.startsWith(PREFIX)) return false;
    const operation = target.slice(PREFIX.length);
    return (
      operation === 'TransactWriteItems' ||
      operation === 'TransactGetItems' ||
      operation === 'BatchWriteItem' ||
      SINGLE_WRITES.has(operation)
    );
  }

  /** Decides on a request (its target and JSON body): pass it on holding its items, or refuse it. */
  async admit(target: string, body: Buffer): Promise<Admission> {
    const operation = target.slice(PREFIX.length);
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return PASS; // DynamoDB Local answers what is malformed
    }
    // Item ids first (this may ask DynamoDB Local for a key schema), then decide and hold in
    // one synchronous step, so two requests can never both pass.
    if (operation === 'TransactWriteItems') {
      const actions = (input.TransactItems as Record<string, TransactAction>[] | undefined) ?? [];
      const ids = await Promise.all(actions.map((action) => this.idOf(Object.values(action)[0])));
      const token = typeof input.ClientRequestToken === 'string' ? input.ClientRequestToken : undefined;
      if (token && this.tokens.has(token)) {
        return refusal('TransactionInProgressException', { message: 'Transaction with the given request token is already in progress.' });
      }
      // The SDK's retry of a transaction whose answer was lost: answered by its token, never
      // cancelled for a conflict (a cancellation would say it did not commit, when it did).
      if (token && this.isCommittedToken(token)) return PASS;
      const conflicts = ids.map((id) => id !== undefined && this.isHeld(id, ['transaction', 'transactionRead']));
      if (conflicts.some(Boolean)) {
        this.refused.transactions++;
        return cancellation(conflicts);
      }
      if (!token) return this.hold(ids, 'transaction');
      this.tokens.add(token);
      return this.hold(ids, 'transaction', (outcome) => {
        this.tokens.delete(token);
        if (outcome === 'succeeded' || outcome === 'unknown') this.rememberToken(token);
      });
    }
    if (operation === 'TransactGetItems') {
      const actions = (input.TransactItems as Record<string, TransactAction>[] | undefined) ?? [];
      const ids = await Promise.all(actions.map((action) => this.idOf(Object.values(action)[0])));
      const conflicts = ids.map((id) => id !== undefined && this.isHeld(id, ['transaction', 'write']));
      if (conflicts.some(Boolean)) {
        this.refused.transactionReads++;
        return cancellation(conflicts);
      }
      return this.hold(ids, 'transactionRead');
    }
    if (SINGLE_WRITES.has(operation)) {
      const id = await this.idOf(input as TransactAction);
      if (id !== undefined && this.isHeld(id, ['transaction'])) {
        this.refused.writes++;
        return refusal('TransactionConflictException', { message: CONFLICT_MESSAGE });
      }
      return this.hold([id], 'write');
    }
    if (operation === 'BatchWriteItem') {
      // Its items are held against TransactGetItems only: DynamoDB does not document what a
      // batch's put or delete does against an ongoing transaction, so it is sent on as it is.
      const requests = Object.entries((input.RequestItems as Record<string, Record<string, TransactAction>[]>) ?? {});
      const ids = await Promise.all(
        requests.flatMap(([table, writes]) =>
          writes.map((write) => {
            const action = write.PutRequest ?? write.DeleteRequest;
            return this.idOf({ TableName: table, Key: action?.Key, Item: action?.Item });
          }),
        ),
      );
      return this.hold(ids, 'write');
    }
    return PASS;
  }

  /** Items currently held (for tests: nothing may stay held once every request is answered). */
  get held(): number {
    return this.holds.size;
  }

  private isHeld(id: string, kinds: readonly HoldKind[]): boolean {
    const counts = this.holds.get(id);
    return counts !== undefined && kinds.some((kind) => counts[kind] > 0);
  }

  private isCommittedToken(token: string): boolean {
    const until = this.committedTokens.get(token);
    return until !== undefined && until > Date.now();
  }

  private rememberToken(token: string): void {
    const now = Date.now();
    // Oldest first: forget what DynamoDB would have forgotten.
    for (const [old, until] of this.committedTokens) {
      if (until > now && this.committedTokens.size < TOKENS_KEPT) break;
      this.committedTokens.delete(old);
    }
    this.committedTokens.set(token, now + TOKEN_WINDOW_MS);
  }

  private hold(ids: readonly (string | undefined)[], kind: HoldKind, then?: (outcome: Outcome) => void): Admission {
    const held = ids.filter((id): id is string => id !== undefined);
    for (const id of held) {
      const counts = this.holds.get(id) ?? { transaction: 0, write: 0, transactionRead: 0 };
      counts[kind]++;
      this.holds.set(id, counts);
    }
    let released = false;
    return {
      pass: true,
      delayMs: this.latencyMs,
      release: (outcome = 'not sent') => {
        if (released) return;
        released = true;
        for (const id of held) {
          const counts = this.holds.get(id);
          if (!counts) continue;
          counts[kind]--;
          if (counts.transaction + counts.write + counts.transactionRead === 0) this.holds.delete(id);
        }
        then?.(outcome);
      },
    };
  }

  /** `table` NUL the key's attributes (in the table's key order), or undefined if it cannot be told. */
  private async idOf(action: TransactAction | undefined): Promise<string | undefined> {
    if (!action?.TableName) return undefined;
    const source = action.Key ?? action.Item;
    if (!source) return undefined;
    let names: readonly string[];
    try {
      names = await this.keySchemaOf(action.TableName);
    } catch {
      return undefined; // no such table: DynamoDB Local will say so
    }
    return `${action.TableName}\u0000${JSON.stringify(names.map((name) => source[name] ?? null))}`;
  }
}

/** What the AWS SDK parses into TransactionCanceledException with CancellationReasons. */
function cancellation(conflicts: readonly boolean[]): Admission {
  const codes = conflicts.map((conflict) => (conflict ? 'TransactionConflict' : 'None'));
  return refusal('TransactionCanceledException', {
    Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    CancellationReasons: conflicts.map((conflict) =>
      conflict ? { Code: 'TransactionConflict', Message: CONFLICT_MESSAGE } : { Code: 'None' },
    ),
  });
}

function refusal(type: string, fields: Record<string, unknown>): Admission {
  const body = JSON.stringify({ __type: `${TYPE_PREFIX}${type}`, ...fields });
  return {
    pass: false,
    status: 400,
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': Buffer.byteLength(body),
      'x-amzn-requestid': randomUUID(),
    },
    body,
  };
}

/** Off only when DYNAMODB_LOCAL_CONFLICTS says so (`off`, `false`, `0`, `no`). */
export function conflictModeFromEnvironment(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.DYNAMODB_LOCAL_CONFLICTS?.trim().toLowerCase();
  return !(value === 'off' || value === 'false' || value === '0' || value === 'no');
}
