/** The file tools' command lines: an id may begin with `-` and is still an id (lib/files-client/tool.ts). */
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { positionalsLast } from '#lib/files-client/tool';

const parse = (argv: string[]) =>
  parseArgs({
    args: positionalsLast(argv, ['name', 'document', 'parallel']),
    allowPositionals: true,
    options: { name: { type: 'string' }, document: { type: 'string' }, parallel: { type: 'string' } },
  });

describe('positionalsLast', () => {
  it('keeps an id that begins with "-" a positional, and an option value that does an option value', () => {
    expect(parse(['-9xQ_abc', 'file.bin', '--parallel', '4'])).toMatchObject({
      positionals: ['-9xQ_abc', 'file.bin'],
      values: { parallel: '4' },
    });
    expect(parse(['--document', '-x1', 'f.pdf'])).toMatchObject({ positionals: ['f.pdf'], values: { document: '-x1' } });
    expect(parse(['a', '--', '--name'])).toMatchObject({ positionals: ['a', '--name'] });
  });

  it('still refuses an option it does not know', () => {
    expect(() => parse(['--nope', 'a'])).toThrow(/--nope/);
    // Without it, parseArgs takes the id for an option.
    expect(() => parseArgs({ args: ['-9xQ_abc', 'f'], allowPositionals: true, options: {} })).toThrow();
  });
});
