/**
 * Which stream records the worker is given: Lambda event filter patterns, in the syntax the
 * CDK stack hands to the event source mapping (records that match none are dropped before an
 * invocation, and not billed). The local stream feeder (lib/local/stream-feeder.ts) applies the
 * same patterns with `matches()` below, so the worker sees the same records in both places.
 *
 * An event source mapping takes 5 patterns by default (a quota that can be raised, but a sixth
 * pattern fails the deploy until it is): kinds of record with the same shape share a pattern
 * (a leaf's matchers are OR'ed), so there is room for more. test/infra/background-worker.test.ts
 * fails above the quota; test/unit/stream-filters.test.ts shows which records pass.
 */
import { FEED_PENDING_PREFIX, FEED_SEQUENCED_PREFIX, ITEM_SORT_KEY, PARTITION, TRASH_PREFIX } from '#core/items/keys';

type Pattern = { [field: string]: Pattern | readonly Matcher[] };
type Matcher = string | { prefix: string } | { exists: boolean };

const keys = (pk: string, sk: readonly Matcher[]) => ({ Keys: { PK: { S: [{ prefix: pk }] }, SK: { S: sk } } });

/** The mapping's default quota of filter patterns. */
export const FILTER_PATTERN_QUOTA = 5;

export const streamFilters: readonly Pattern[] = [
  // A write's change, to be numbered into its repository's feed; a numbered change, to be published.
  { eventName: ['INSERT'], dynamodb: keys(PARTITION.feed, [{ prefix: FEED_PENDING_PREFIX }, { prefix: FEED_SEQUENCED_PREFIX }]) },
  // Background work: started (INSERT) or advanced (MODIFY: a nudge to go on).
  { eventName: ['INSERT', 'MODIFY'], dynamodb: keys(PARTITION.task, [ITEM_SORT_KEY.task]) },
  // A trash record DynamoDB's TTL removed: its item is due to be purged.
  {
    eventName: ['REMOVE'],
    userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
    dynamodb: keys(PARTITION.repository, [{ prefix: TRASH_PREFIX }]),
  },
  // A document with more revisions than it must keep: old ones may be reclaimed.
  {
    eventName: ['MODIFY'],
    dynamodb: { Keys: { SK: { S: [ITEM_SORT_KEY.document] } }, NewImage: { pruneRevisions: { BOOL: [{ exists: true }] } } },
  },
];

/** True when the record matches one of the patterns (Lambda's semantics for the parts used above). */
export function matchesAny(record: unknown, patterns: readonly Pattern[] = streamFilters): boolean {
  return patterns.some((pattern) => matches(record, pattern));
}

const isLeaf = (pattern: Pattern | readonly Matcher[]): pattern is readonly Matcher[] => Array.isArray(pattern);

function matches(value: unknown, pattern: Pattern | readonly Matcher[]): boolean {
  if (isLeaf(pattern)) return pattern.some((matcher) => matchesOne(value, matcher));
  if (typeof value !== 'object' || value === null) return matchesMissing(pattern);
  return Object.entries(pattern).every(([field, inner]) => matches((value as Record<string, unknown>)[field], inner));
}

/** A field that is not there matches only where every leaf below allows `exists: false`. */
function matchesMissing(pattern: Pattern): boolean {
  return Object.values(pattern).every((inner) =>
    isLeaf(inner) ? inner.some((m) => typeof m === 'object' && 'exists' in m && !m.exists) : matchesMissing(inner),
  );
}

function matchesOne(value: unknown, matcher: Matcher): boolean {
  if (typeof matcher === 'string') return value === matcher;
  if ('prefix' in matcher) return typeof value === 'string' && value.startsWith(matcher.prefix);
  return (value !== undefined) === matcher.exists;
}
