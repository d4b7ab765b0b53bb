/**
 * An upload's rules that need no database (functions/core/use-cases/upload-rules.ts): what a start
 * asserts of its target, when it is refused as expired or closed, and the sweeper's choice of what
 * to do with an upload whose time came — at the exact instant of its expiry.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { HttpError } from '#core/errors';
import { documentKey, folderKey } from '#core/items/keys';
import { closed, expired, OPEN_STATUSES, refuseExpired, sweepAction, targetCheck } from '#core/use-cases/upload-rules';

beforeEach(() => {
  process.env.TABLE_NAME = 'documents-unit';
});

const EXPIRES = '2026-11-27T12:00:00.000Z';
const at = Date.parse(EXPIRES);
const upload = (status: 'open' | 'verifying' | 'completed' | 'failed' | 'cancelled' | 'expired') => ({ status, expiresAt: EXPIRES });

describe('the sweeper’s choice', () => {
  it('expires an open upload from the instant of its expiry, and tries to finish it before', () => {
    expect(sweepAction(upload('open'), at - 1)).toBe('finish');
    expect(sweepAction(upload('open'), at)).toBe('expire');
    expect(sweepAction(upload('open'), at + 1)).toBe('expire');
  });

  it('never expires an upload being verified: the expiry clock stops at complete', () => {
    for (const when of [at - 1, at, at + 86_400_000]) expect(sweepAction(upload('verifying'), when)).toBe('finish');
  });

  it('takes a completed upload out of its index, and deletes the bytes of a failed, cancelled or expired one', () => {
    for (const when of [at - 1, at + 1]) {
      expect(sweepAction(upload('completed'), when)).toBe('leave-index');
      for (const status of ['failed', 'cancelled', 'expired'] as const) expect(sweepAction(upload(status), when)).toBe('delete-bytes');
    }
  });

  it('reads the clock when not told the time', () => {
    expect(sweepAction({ status: 'open', expiresAt: new Date(Date.now() - 1_000).toISOString() })).toBe('expire');
    expect(sweepAction({ status: 'open', expiresAt: new Date(Date.now() + 60_000).toISOString() })).toBe('finish');
  });
});

describe('refusals', () => {
  const status = (work: () => void) => {
    try {
      work();
      return 'ok';
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return `${error.status} ${error.kind}: ${error.detail}`;
    }
  };

  it('an upload past its expiry, or expired, is 410 whatever it became', () => {
    expect(status(() => refuseExpired(upload('open'), at - 1))).toBe('ok');
    expect(status(() => refuseExpired(upload('completed'), at - 1))).toBe('ok');
    expect(status(() => refuseExpired(upload('open'), at))).toBe(`410 upload-expired: The upload expired at ${EXPIRES}; start a new one.`);
    expect(status(() => refuseExpired(upload('completed'), at + 1))).toMatch(/^410 /);
    expect(status(() => refuseExpired(upload('expired'), at - 1))).toMatch(/^410 /);
    expect(status(() => refuseExpired({ status: 'open', expiresAt: new Date(Date.now() - 1).toISOString() }))).toMatch(/^410 /);
    expect(expired(upload('open')).status).toBe(410);
  });

  it('a closed upload is 409, saying what it is', () => {
    expect(
      status(() => {
        throw closed(upload('completed'));
      }),
    ).toBe('409 upload-closed: The upload is completed: its document version exists.');
    expect(
      status(() => {
        throw closed(upload('failed'));
      }),
    ).toBe('409 upload-closed: The upload is failed: start a new one.');
  });

  it('an upload may still move only while open or verifying', () => {
    expect(OPEN_STATUSES).toEqual(['open', 'verifying']);
  });
});

describe('what a start asserts of its target', () => {
  it('a new document: its folder, live in the repository', () => {
    expect(targetCheck({ folderId: 'f1' }, 'r1').ConditionCheck).toEqual({
      TableName: 'documents-unit',
      Key: folderKey('f1'),
      ConditionExpression: '#repository = :repository AND attribute_not_exists(#trash)',
      ExpressionAttributeNames: { '#repository': 'repositoryId', '#trash': 'trash' },
      ExpressionAttributeValues: { ':repository': 'r1' },
    });
  });

  it('a new version: the document out of the trash, at the version named if one is', () => {
    expect(targetCheck({ documentId: 'd1' }, 'r1').ConditionCheck).toEqual({
      TableName: 'documents-unit',
      Key: documentKey('d1'),
      ConditionExpression: 'attribute_not_exists(#trash)',
      ExpressionAttributeNames: { '#trash': 'trash' },
    });
    expect(targetCheck({ documentId: 'd1', version: 3 }, 'r1').ConditionCheck).toEqual({
      TableName: 'documents-unit',
      Key: documentKey('d1'),
      ConditionExpression: 'attribute_not_exists(#trash) AND #version = :version',
      ExpressionAttributeNames: { '#trash': 'trash', '#version': 'version' },
      ExpressionAttributeValues: { ':version': 3 },
    });
  });
});
