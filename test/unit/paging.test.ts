import { beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '#core/errors';
import { decodePageToken, encodePageToken } from '#core/paging';

beforeAll(() => {
  process.env.PAGING_TOKEN_SECRET = 'unit-test-secret';
});

function rejection(run: () => unknown): HttpError {
  try {
    run();
  } catch (error) {
    return error as HttpError;
  }
  throw new Error('expected a rejection');
}

describe('paging tokens', () => {
  it('round-trips the position for the same list', () => {
    const token = encodePageToken('documents:f1', 'D#report');
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodePageToken('documents:f1', token)).toBe('D#report');
  });

  it('rejects a token from another list', () => {
    const token = encodePageToken('documents:f1', 'D#report');
    const error = rejection(() => decodePageToken('documents:f2', token));
    expect(error.status).toBe(400);
    expect(error.options.errors?.[0]?.path).toBe('nextToken');
  });

  it('rejects every single-character alteration', () => {
    const token = encodePageToken('folders:f1', 'F#a');
    for (let i = 0; i < token.length; i++) {
      const altered = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      if (altered === token) continue;
      expect(() => decodePageToken('folders:f1', altered)).toThrow(HttpError);
    }
  });

  it('rejects a forged payload without the secret', () => {
    const payload = Buffer.from(JSON.stringify({ l: 'folders:f1', k: 'F#zzz' })).toString('base64url');
    expect(() => decodePageToken('folders:f1', `${payload}.AAAA`)).toThrow(HttpError);
    expect(() => decodePageToken('folders:f1', 'garbage')).toThrow(HttpError);
    expect(() => decodePageToken('folders:f1', 'a.b.c')).toThrow(HttpError);
  });

  it('rejects a token signed with another secret', () => {
    const token = encodePageToken('folders:f1', 'F#a');
    process.env.PAGING_TOKEN_SECRET = 'another-secret';
    try {
      expect(() => decodePageToken('folders:f1', token)).toThrow(HttpError);
    } finally {
      process.env.PAGING_TOKEN_SECRET = 'unit-test-secret';
    }
  });
});

describe('paging token signatures', () => {
  it('rejects a signature whose last character differs only in unused bits', () => {
    process.env.PAGING_TOKEN_SECRET = 'unit-test-secret';
    // Try many tokens: for each, every other character in the last position must be refused.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let n = 0; n < 20; n++) {
      const token = encodePageToken('folders:f', `F#name${n}`);
      for (const c of alphabet) {
        if (c === token.at(-1)) continue;
        expect(() => decodePageToken('folders:f', token.slice(0, -1) + c)).toThrow(HttpError);
      }
    }
  });
});
