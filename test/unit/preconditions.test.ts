import { describe, expect, it } from 'vitest';
import { checkPrecondition, isConditional, parseIfMatch } from '../../functions/core/preconditions';
import { HttpError } from '../../functions/core/errors';

const status = (run: () => unknown) => {
  try {
    run();
    return 'passed';
  } catch (error) {
    return (error as HttpError).status;
  }
};

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
    expect(status(() => checkPrecondition({ ifMatch: parseIfMatch('W/"3"') }, 3))).toBe(412);
  });

  it('rejects malformed headers with 400', () => {
    expect(status(() => parseIfMatch('3'))).toBe(400);
    expect(status(() => parseIfMatch('"3'))).toBe(400);
  });

  it('compares If-Match and body version with the stored version', () => {
    expect(status(() => checkPrecondition({ ifMatch: [2] }, 2))).toBe('passed');
    expect(status(() => checkPrecondition({ ifMatch: [1] }, 2))).toBe(412);
    expect(status(() => checkPrecondition({ version: 2 }, 2))).toBe('passed');
    expect(status(() => checkPrecondition({ version: 1 }, 2))).toBe(412);
    expect(status(() => checkPrecondition({ ifMatch: [2], version: 1 }, 2))).toBe(412);
    expect(status(() => checkPrecondition({}, 7))).toBe('passed');
  });

  it('knows when a write is conditional', () => {
    expect(isConditional({})).toBe(false);
    expect(isConditional({ ifMatch: [1] })).toBe(true);
    expect(isConditional({ version: 1 })).toBe(true);
  });
});
