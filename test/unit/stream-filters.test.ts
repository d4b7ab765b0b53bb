/**
 * Which stream records reach the worker (functions/worker/filters.ts `matchesAny`, Lambda's
 * filter semantics for the parts the patterns use). The patterns were consolidated from five to
 * four (the two feed INSERTs share one pattern) to leave room under the mapping's default quota
 * of five: every kind of record is checked against the five patterns as they were, so the
 * consolidated set passes exactly the same records.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FILTER_PATTERN_QUOTA, matchesAny, streamFilters } from '#functions/worker/filters';

const keys = (pk: string, sk: unknown[]) => ({ Keys: { PK: { S: [{ prefix: pk }] }, SK: { S: sk } } });
/** The five patterns before consolidation (commit 23c2056). */
const beforeConsolidation = [
  { eventName: ['INSERT'], dynamodb: keys('FEED#', [{ prefix: 'P#' }]) },
  { eventName: ['INSERT'], dynamodb: keys('FEED#', [{ prefix: 'S#' }]) },
  { eventName: ['INSERT', 'MODIFY'], dynamodb: keys('TASK#', ['TASK']) },
  {
    eventName: ['REMOVE'],
    userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
    dynamodb: keys('REPO#', [{ prefix: 'TRASH#' }]),
  },
  { eventName: ['MODIFY'], dynamodb: { Keys: { SK: { S: ['DOC'] } }, NewImage: { pruneRevisions: { BOOL: [{ exists: true }] } } } },
] as unknown as typeof streamFilters;

type Event = 'INSERT' | 'MODIFY' | 'REMOVE';
function record(eventName: Event, PK: string, SK: string, extra: { ttl?: boolean; prune?: boolean } = {}) {
  return {
    eventName,
    ...(extra.ttl ? { userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' } } : {}),
    dynamodb: {
      Keys: { PK: { S: PK }, SK: { S: SK } },
      ...(eventName === 'REMOVE'
        ? {}
        : { NewImage: { PK: { S: PK }, SK: { S: SK }, ...(extra.prune ? { pruneRevisions: { BOOL: true } } : {}) } }),
    },
  };
}

describe('stream filters', () => {
  it('stays under the mapping’s default quota of patterns, with room for one more', () => {
    expect(streamFilters.length).toBeLessThan(FILTER_PATTERN_QUOTA);
  });

  const cases: [string, ReturnType<typeof record>, boolean][] = [
    ['a pending change written', record('INSERT', 'FEED#r1', 'P#abc'), true],
    ['a numbered change written', record('INSERT', 'FEED#r1', 'S#000000000001'), true],
    ['a pending change removed (numbered)', record('REMOVE', 'FEED#r1', 'P#abc'), false],
    ['a numbered change modified', record('MODIFY', 'FEED#r1', 'S#000000000001'), false],
    ['the feed counter written', record('INSERT', 'FEED#r1', 'SEQ'), false],
    ['the feed counter moved', record('MODIFY', 'FEED#r1', 'SEQ'), false],
    ['a task started', record('INSERT', 'TASK#t1', 'TASK'), true],
    ['a task advanced', record('MODIFY', 'TASK#t1', 'TASK'), true],
    ['a task finished', record('REMOVE', 'TASK#t1', 'TASK'), false],
    ['a trash record expired by TTL', record('REMOVE', 'REPO#r1', 'TRASH#2026#x', { ttl: true }), true],
    ['a trash record removed by a request', record('REMOVE', 'REPO#r1', 'TRASH#2026#x'), false],
    ['a trash record written', record('INSERT', 'REPO#r1', 'TRASH#2026#x'), false],
    ['a document past its revisions', record('MODIFY', 'DOC#d1', 'DOC', { prune: true }), true],
    ['a document updated', record('MODIFY', 'DOC#d1', 'DOC'), false],
    ['a document created with the mark', record('INSERT', 'DOC#d1', 'DOC', { prune: true }), false],
    ['a revision written', record('INSERT', 'DOC#d1', 'REV#0000000002'), false],
    ['a P# key outside the feed', record('INSERT', 'REPO#r1', 'P#x'), false],
    ['a folder written', record('INSERT', 'FOLDER#f1', 'FOLDER'), false],
  ];
  for (const [name, input, passes] of cases) {
    it(`${passes ? 'passes' : 'drops'} ${name}, as the five patterns did`, () => {
      expect(matchesAny(input)).toBe(passes);
      expect(matchesAny(input, beforeConsolidation)).toBe(passes);
    });
  }

  it('passes exactly the records the five patterns passed, for any key and event', () => {
    const part = fc.constantFrom('FEED#', 'TASK#', 'REPO#', 'DOC#', 'FOLDER#', 'P#', 'S#', 'TRASH#', 'SEQ', 'TASK', 'DOC', 'REV#', '');
    fc.assert(
      fc.property(
        fc.constantFrom<Event>('INSERT', 'MODIFY', 'REMOVE'),
        part,
        fc.string({ maxLength: 3 }),
        part,
        fc.string({ maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        (event, pk, pkRest, sk, skRest, ttl, prune) => {
          const input = record(event, pk + pkRest, sk + skRest, { ttl, prune });
          expect(matchesAny(input)).toBe(matchesAny(input, beforeConsolidation));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
