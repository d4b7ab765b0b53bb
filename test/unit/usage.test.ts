/**
 * The quota's arithmetic (functions/core/items/usage.ts), in the fast tier: what a start checks as
 * read (fitsQuota) and what the transaction asserts (addUsageStep's `bytes <= quota - size`), at the
 * exact edge; what giving bytes back asks; what a document write asserts of its kept bytes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConditionFailed } from '#core/db/client';
import { usageKey } from '#core/items/keys';
import {
  addUsageStep,
  fitsQuota,
  keptBytesAre,
  keptBytesOf,
  quotaExceeded,
  quotaReached,
  releaseUsageStep,
  USAGE_STEP,
  usageOf,
} from '#core/items/usage';
import { DEFAULT_QUOTA_BYTES } from '#core/limits';

beforeEach(() => {
  process.env.TABLE_NAME = 'documents-unit';
  process.env.QUOTA_BYTES = '10000';
});
afterEach(() => {
  delete process.env.QUOTA_BYTES;
});

/** What DynamoDB would decide for the step's condition on an item holding `bytes` (undefined: no usage item yet). */
const allows = (step: ReturnType<typeof addUsageStep>, bytes: number | undefined) => {
  const room = step.Update?.ExpressionAttributeValues?.[':room'] as number;
  const condition = step.Update?.ConditionExpression;
  expect(condition).toBe(room < 0 ? '#bytes <= :room' : 'attribute_not_exists(#bytes) OR #bytes <= :room');
  if (bytes === undefined) return condition!.startsWith('attribute_not_exists(#bytes)');
  return bytes <= room;
};

describe('the quota', () => {
  it('fits an upload of exactly the room left, and not one byte more (as read)', () => {
    expect(fitsQuota({ bytes: 0, quota: 10_000 }, 10_000)).toBe(true);
    expect(fitsQuota({ bytes: 0, quota: 10_000 }, 10_001)).toBe(false);
    expect(fitsQuota({ bytes: 6_000, quota: 10_000 }, 4_000)).toBe(true);
    expect(fitsQuota({ bytes: 6_000, quota: 10_000 }, 4_001)).toBe(false);
    expect(fitsQuota({ bytes: 10_000, quota: 10_000 }, 0)).toBe(true);
    expect(fitsQuota({ bytes: 10_000, quota: 10_000 }, 1)).toBe(false);
  });

  it('is asserted in the transaction at the same edge: bytes <= quota - size', () => {
    const step = addUsageStep('r1', 4_000);
    expect(step.Update).toMatchObject({
      TableName: 'documents-unit',
      Key: usageKey('r1'),
      UpdateExpression: 'ADD #bytes :size',
      ExpressionAttributeNames: { '#bytes': 'bytes' },
      ExpressionAttributeValues: { ':size': 4_000, ':room': 6_000 },
    });
    expect(allows(step, 6_000)).toBe(true);
    expect(allows(step, 6_001)).toBe(false);
    expect(allows(addUsageStep('r1', 10_000), 0)).toBe(true);
    expect(allows(addUsageStep('r1', 10_001), 0)).toBe(false);
  });

  it('reads the quota with the usage, the default without a setting, and 0 bytes when there is no usage item', () => {
    const lookup = (key: { PK: string; SK: string }) =>
      key.PK === usageKey('r1').PK && key.SK === usageKey('r1').SK ? { bytes: 1234 } : undefined;
    expect(usageOf(lookup, 'r1')).toEqual({ bytes: 1234, quota: 10_000 });
    expect(usageOf(lookup, 'r2')).toEqual({ bytes: 0, quota: 10_000 });
    delete process.env.QUOTA_BYTES;
    expect(usageOf(lookup, 'r1').quota).toBe(DEFAULT_QUOTA_BYTES);
  });

  it('gives bytes back only to a usage item that is there (a deleted repository takes nothing back)', () => {
    expect(releaseUsageStep('r1', 700).Update).toMatchObject({
      Key: usageKey('r1'),
      UpdateExpression: 'ADD #bytes :size',
      ExpressionAttributeNames: { '#bytes': 'bytes' },
      ExpressionAttributeValues: { ':size': -700 },
      ConditionExpression: 'attribute_exists(PK)',
    });
  });

  it('makes the usage item with the first bytes added (none: 0 bytes), unless they alone are past the quota', () => {
    expect(allows(addUsageStep('r1', 0), undefined)).toBe(true);
    expect(allows(addUsageStep('r1', 10_000), undefined)).toBe(true);
    expect(allows(addUsageStep('r1', 10_001), undefined)).toBe(false);
  });

  it('explains a refusal: the usage step failed, with the size and the quota', () => {
    expect(quotaReached(new ConditionFailed(new Set([USAGE_STEP]), {}))).toBe(true);
    expect(quotaReached(new ConditionFailed(new Set(['access']), {}))).toBe(false);
    expect(USAGE_STEP).toBe('usage');
    const problem = quotaExceeded(42);
    expect(problem).toMatchObject({ kind: 'quota-exceeded', status: 409 });
    expect(problem.detail).toBe(
      'Writing 42 more bytes would take the repository past its storage quota of 10000 bytes (GET /{id}: usage).',
    );
  });
});

describe('a document’s kept bytes', () => {
  it('are its keptBytes, 0 when none are recorded', () => {
    expect(keptBytesOf({ keptBytes: 300 })).toBe(300);
    expect(keptBytesOf({})).toBe(0);
  });

  it('are asserted unchanged by a write of the item: as read, or still absent on an item that is there', () => {
    expect(keptBytesAre({ keptBytes: 300 })).toEqual({
      expression: '#kept = :kept',
      names: { '#kept': 'keptBytes' },
      values: { ':kept': 300 },
    });
    expect(keptBytesAre({})).toEqual({
      expression: 'attribute_exists(PK) AND attribute_not_exists(#kept)',
      names: { '#kept': 'keptBytes' },
    });
  });
});
