import { describe, expect, it } from 'vitest';
import { checkPrecondition, parseIfMatch } from '#core/preconditions';
import { statusOf } from '#test/support/errors';

describe('If-Match', () => {
  it('parses strong tags, lists and *', () => {
    expect(parseIfMatch('"3"')).toEqual([3]);
    expect(parseIfMatch('"3", "4"')).toEqual([3, 4]);
    expect(parseIfMatch('*')).toBeUndefined();
    expect(parseIfMatch(undefined)).toBeUndefined();
  });

  it('keeps weak and foreign tags as never matching', () => {
    expect(parseIfMatch('W/"3"')).toEqual([]);
    expect(parseIfMatch('"abc"')).toEqual([]);
    expect(statusOf(() => checkPrecondition({ ifMatch: parseIfMatch('W/"3"') }, 3))).toBe(412);
  });

  it('rejects malformed headers with 400', () => {
    expect(statusOf(() => parseIfMatch('3'))).toBe(400);
    expect(statusOf(() => parseIfMatch('"3'))).toBe(400);
  });

  it('compares If-Match and body version with the stored version', () => {
    expect(statusOf(() => checkPrecondition({ ifMatch: [2] }, 2))).toBe('ok');
    expect(statusOf(() => checkPrecondition({ ifMatch: [1] }, 2))).toBe(412);
    expect(statusOf(() => checkPrecondition({ version: 2 }, 2))).toBe('ok');
    expect(statusOf(() => checkPrecondition({ version: 1 }, 2))).toBe(412);
    expect(statusOf(() => checkPrecondition({ ifMatch: [2], version: 1 }, 2))).toBe(412);
    expect(statusOf(() => checkPrecondition({}, 7))).toBe('ok');
  });

  it('lets a write with neither If-Match nor version apply to whatever version is stored', () => {
    for (const stored of [1, 2, 99]) expect(statusOf(() => checkPrecondition({ ifMatch: parseIfMatch(undefined) }, stored))).toBe('ok');
    for (const stored of [1, 2, 99]) expect(statusOf(() => checkPrecondition({ ifMatch: parseIfMatch('*') }, stored))).toBe('ok');
  });
});
