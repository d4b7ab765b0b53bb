import { describe, expect, it } from 'vitest';
import { entryKey } from '#core/items/keys';
import { nameKey, nameLength, nameProblem, normalizeName } from '#core/names';

describe('names', () => {
  it('stores names trimmed and in NFC', () => {
    expect(normalizeName('  Re\u0301sume\u0301.txt \n')).toBe('Résumé.txt');
  });

  it('compares by Unicode full case folding of the NFC form', () => {
    expect(nameKey('Résumé')).toBe(nameKey('RE\u0301SUME\u0301'));
    expect(nameKey('Report.TXT')).toBe('report.txt');
    expect(nameKey('straße')).toBe(nameKey('STRASSE'));
    expect(nameKey('ΟΔΟΣ')).toBe(nameKey('οδος'));
    expect(nameKey('ﬁle')).toBe(nameKey('FILE'));
    expect(nameKey('a')).not.toBe(nameKey('b'));
  });

  it('refuses ".", "..", bidirectional controls, and names made only of white space and invisible characters', () => {
    expect(nameProblem('.')).toMatch(/"\."/);
    expect(nameProblem('..')).toMatch(/"\."/);
    expect(nameProblem('...')).toBeUndefined();
    for (const bidi of ['\u200E', '\u200F', '\u202A', '\u202E', '\u2066', '\u2069'])
      expect(nameProblem(`a${bidi}b`)).toMatch(/bidirectional/);
    expect(nameProblem('\u200B')).toMatch(/invisible/); // zero-width space (Cf)
    expect(nameProblem('\u3000\u200B\u00A0')).toMatch(/invisible/);
    expect(nameProblem('\u200Bx')).toBeUndefined();
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

  it('keeps every entry key within a DynamoDB sort key (1,024 bytes), even where folding triples a name', () => {
    for (const name of ['𐐀'.repeat(255), 'ΰ'.repeat(255), 'ᾀ'.repeat(255)]) {
      const key = entryKey('documents', 'folder', nameKey(name)).SK;
      expect(Buffer.byteLength(key), name.slice(0, 2)).toBeLessThanOrEqual(1024);
    }
    // Two long names that agree on their first kilobyte still differ; equal ones still clash.
    const a = entryKey('folders', 'f', nameKey(`${'ΰ'.repeat(254)}a`)).SK;
    const b = entryKey('folders', 'f', nameKey(`${'ΰ'.repeat(254)}b`)).SK;
    expect(a).not.toBe(b);
    expect(entryKey('folders', 'f', nameKey(`${'Ϋ́'.repeat(254)}A`)).SK).toBe(a);
  });
});
