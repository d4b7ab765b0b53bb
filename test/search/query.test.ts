/** The query parser of GET /search (functions/core/search/query.ts) and the JavaScript fold: no database. */
import { describe, expect, it } from 'vitest';
import { HttpError } from '#core/errors';
import { searchFold } from '#core/search/fold';
import { parseQuery } from '#core/search/query';
import { snippetOf } from '#core/search/search';
import { SNIPPET_END as E, SNIPPET_START as S } from '#core/search/search-index';

const words = (q: string) => {
  const { required, excluded } = parseQuery(q);
  return { required: required.map((group) => group.map((term) => term.words.join(' '))), excluded: excluded.map((t) => t.words.join(' ')) };
};

describe('parseQuery', () => {
  it('words are each required', () => {
    expect(words('plan  budget')).toEqual({ required: [['plan'], ['budget']], excluded: [] });
  });

  it('OR binds tighter than the implied AND: plan a OR b is plan AND (a OR b)', () => {
    expect(words('plan a OR b')).toEqual({ required: [['plan'], ['a', 'b']], excluded: [] });
    expect(words('a OR b OR c d')).toEqual({ required: [['a', 'b', 'c'], ['d']], excluded: [] });
  });

  it('OR without a term on both sides, or in lower case, is a word', () => {
    expect(words('OR plan')).toEqual({ required: [['or'], ['plan']], excluded: [] });
    expect(words('plan OR')).toEqual({ required: [['plan'], ['or']], excluded: [] });
    expect(words('a or b')).toEqual({ required: [['a'], ['or'], ['b']], excluded: [] });
  });

  it('phrases, exclusions, excluded phrases; an unclosed quote runs to the end', () => {
    expect(words('"two words" -draft -"old plan" x')).toEqual({ required: [['two words'], ['x']], excluded: ['draft', 'old plan'] });
    expect(words('a "b c')).toEqual({ required: [['a'], ['b c']], excluded: [] });
  });

  it('a word with punctuation inside is a phrase of its words; punctuation alone is no term', () => {
    expect(words('report-2024 !!')).toEqual({ required: [['report 2024']], excluded: [] });
  });

  it('folds case, accents and width', () => {
    expect(words('Straße CAFÉ ＡＢＣ')).toEqual({ required: [['strasse'], ['cafe'], ['abc']], excluded: [] });
  });

  it('user text never becomes syntax: quotes and operators of tsquery are just not words', () => {
    expect(words("a' & b | !c <-> d:*")).toEqual({ required: [['a'], ['b'], ['c'], ['d']], excluded: [] });
  });

  it.each([
    ['empty', ''],
    ['no letter or digit', '!!! -- "" '],
    ['only exclusions', '-a -"b c"'],
    ['over 256 characters', 'a'.repeat(257)],
  ])('400 for %s', (_, q) => {
    let thrown: unknown;
    try {
      parseQuery(q);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HttpError);
    expect((thrown as HttpError).status).toBe(400);
  });

  it('256 characters (code points: an emoji counts once) is allowed', () => {
    expect(() => parseQuery(`${'😀'.repeat(255)}a`)).not.toThrow();
  });
});

describe('searchFold', () => {
  it.each([
    ['Straße', 'strasse'],
    ['Café', 'cafe'],
    ['ＡＢＣ', 'abc'],
    ['ﬁle', 'file'],
    ['ΟΔΟΣ οδος', 'οδοσ οδοσ'],
    ['İstanbul', 'istanbul'],
  ])('%s → %s', (text, folded) => {
    expect(searchFold(text)).toBe(folded);
  });
});

describe('snippetOf', () => {
  it('gives UTF-16 offsets of the marked words, without the markers', () => {
    const { text, highlights } = snippetOf(`a 😀 ${S}budget${E} and ${S}plan${E}`);
    expect(text).toBe('a 😀 budget and plan');
    expect(highlights).toEqual([
      [5, 11],
      [16, 20],
    ]);
    for (const [from, to] of highlights) expect(['budget', 'plan']).toContain(text.slice(from, to));
  });

  it('cuts at 300 UTF-16 units, never inside a surrogate pair, and the highlights with it', () => {
    const { text, highlights } = snippetOf(`${'x'.repeat(299)}😀 ${S}late${E}`);
    expect(text.length).toBe(299);
    expect(highlights).toEqual([]);
  });
});
