/**
 * Key shapes live in functions/core/items/keys.ts only (docs/data-model.md): no other module of
 * the service spells a key prefix (`'TASK#'`, `` `FEED#${id}` ``…) in its code; it asks keys.ts
 * for the key, the prefix or the predicate. Comments may name them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as keys from '#core/items/keys';

const root = fileURLToPath(new URL('../../', import.meta.url));
const KEYS_MODULE = 'functions/core/items/keys.ts';

/** Every prefix keys.ts exports: the partitions' and the sort keys' (`REPO#`, `UPLOAD#`, `P#`…). */
const prefixes = [
  ...Object.values(keys.PARTITION),
  ...Object.entries(keys)
    .filter(([name, value]) => /PREFIX$/.test(name) && typeof value === 'string')
    .map(([, value]) => value as string),
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** The code of a module without its comments (block and line comments; good enough for this source). */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** String literals (quoted or template) that begin with one of the prefixes. */
function spelledPrefixes(code: string): string[] {
  const found: string[] = [];
  for (const prefix of prefixes) {
    const pattern = new RegExp(`['"\`]${prefix.replace(/[$#]/g, '\\$&')}`, 'g');
    for (const match of code.matchAll(pattern)) found.push(match[0]);
  }
  return found;
}

describe('key shapes in one module', () => {
  it('knows the prefixes it looks for', () => {
    expect(prefixes).toEqual(expect.arrayContaining(['TASK#', 'FEED#', 'REPO#', 'UPLOAD#', 'P#']));
    expect(spelledPrefixes("if (PK.startsWith('TASK#')) x = `FEED#" + 'id`;')).toEqual(expect.arrayContaining(["'TASK#", '`FEED#']));
  });

  it('no module of functions/ but keys.ts spells a key prefix', () => {
    const offenders = sourceFiles(join(root, 'functions'))
      .map((file) => ({ file: relative(root, file), found: spelledPrefixes(withoutComments(readFileSync(file, 'utf8'))) }))
      .filter(({ file, found }) => file !== KEYS_MODULE && found.length > 0);
    expect(offenders).toEqual([]);
  });
});
