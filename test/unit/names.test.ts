import { describe, expect, it } from 'vitest';
import { nameKey, nameLength, nameProblem, normalizeName } from '#core/names';

describe('names', () => {
  it('stores names trimmed and in NFC', () => {
    expect(normalizeName('  Re\u0301sume\u0301.txt \n')).toBe('Résumé.txt');
  });

  it('compares case-insensitively and across normalization forms', () => {
    expect(nameKey('Résumé')).toBe(nameKey('RE\u0301SUME\u0301'));
    expect(nameKey('Report.TXT')).toBe('report.txt');
    expect(nameKey('a')).not.toBe(nameKey('b'));
  });

  it('counts code points, so 255 emoji are allowed and 256 are not', () => {
    expect(nameLength('😀😀')).toBe(2);
    expect(nameProblem('😀'.repeat(255))).toBeUndefined();
    expect(nameProblem('😀'.repeat(256))).toMatch(/at most 255/);
  });

  it('rejects empty names, slashes and control characters', () => {
    expect(nameProblem('')).toMatch(/empty/);
    expect(nameProblem('a/b')).toMatch(/"\/"/);
    expect(nameProblem('tab\there')).toMatch(/control/);
    expect(nameProblem('bell\u0007')).toMatch(/control/);
    expect(nameProblem('ok name (1).md')).toBeUndefined();
  });

  it('keeps the longest possible name key within a DynamoDB sort key (1024 bytes)', () => {
    // 255 four-byte characters plus the longest key prefix ("D#").
    const longest = nameKey('𐐀'.repeat(255));
    expect(Buffer.byteLength(`D#${longest}`)).toBeLessThanOrEqual(1024);
  });
});
