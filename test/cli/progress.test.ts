/** The file tools' progress line (lib/files-client/progress.ts): what it says, redrawn on a terminal, plain lines otherwise. */
import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration, Progress, progressLine } from '#lib/files-client/progress';

const MiB = 1024 * 1024;

describe('the progress line', () => {
  it('says bytes done of the total, percent, rate in MB/s and time left', () => {
    expect(progressLine('a.bin', 12 * MiB, 20 * MiB, 10_000_000, 2)).toBe('a.bin: 12.0 MiB of 20.0 MiB (60%), 5.0 MB/s, 0:02 left');
    expect(progressLine('a.bin', 20 * MiB, 20 * MiB, 20 * MiB, 4)).toBe('a.bin: 20.0 MiB of 20.0 MiB (100%), 5.2 MB/s, done');
    // Nothing moved yet: no rate, no estimate.
    expect(progressLine('a.bin', 8 * MiB, 20 * MiB, 0, 0)).toBe('a.bin: 8.0 MiB of 20.0 MiB (40%), 0.0 MB/s, ? left');
    expect(progressLine('empty', 0, 0, 0, 0)).toBe('empty: 0 KiB of 0 KiB (100%), 0.0 MB/s, done');
  });

  it('writes sizes and durations as people read them', () => {
    expect([formatBytes(512 * 1024), formatBytes(1536 * MiB)]).toEqual(['512 KiB', '1536.0 MiB']);
    expect([formatDuration(7), formatDuration(754), formatDuration(3723), formatDuration(-1)]).toEqual([
      '0:07',
      '12:34',
      '1:02:03',
      '0:00',
    ]);
  });

  it('counts skipped bytes as done but not in the rate, and takes back a part sent again', () => {
    const lines: string[] = [];
    const progress = new Progress('a.bin', 30 * MiB, { write: (text: string) => lines.push(text) }, 3600);
    progress.skip(10 * MiB);
    progress.add(5 * MiB);
    progress.add(-5 * MiB);
    progress.add(20 * MiB);
    progress.finish();
    // Plain output: the first line at once, then none within the interval, then the last.
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^a\.bin: 15\.0 MiB of 30\.0 MiB \(50%\), [\d.]+ MB\/s, .* left\n$/);
    expect(lines[1]).toMatch(/^a\.bin: 30\.0 MiB of 30\.0 MiB \(100%\), [\d.]+ MB\/s, done\n$/);
  });

  it('writes the last plain line once when the last bytes came in one go', () => {
    const lines: string[] = [];
    const progress = new Progress('a.bin', MiB, { write: (text: string) => lines.push(text) });
    progress.add(MiB);
    progress.finish();
    expect(lines).toEqual([expect.stringMatching(/^a\.bin: 1\.0 MiB of 1\.0 MiB \(100%\), .* done\n$/)]);
  });

  it('redraws one line in place on a terminal, and ends it', () => {
    let text = '';
    const progress = new Progress('a.bin', MiB, { isTTY: true, write: (chunk: string) => (text += chunk) });
    progress.add(MiB / 2);
    progress.add(MiB / 2); // within 100 ms of the last draw: not drawn
    progress.finish();
    const ERASE_TO_END = '\x1b[K';
    const draws = text.split('\r');
    expect(draws[0]).toBe(''); // each draw starts at the line's beginning
    expect(draws.slice(1).map((draw) => draw.endsWith(ERASE_TO_END) || draw.endsWith(`${ERASE_TO_END}\n`))).toEqual([true, true]);
    expect(draws[1]).toMatch(/^a\.bin: 512 KiB of 1\.0 MiB \(50%\), /);
    expect(draws[2]).toMatch(/^a\.bin: 1\.0 MiB of 1\.0 MiB \(100%\), .* done/);
    expect(text.split('\n')).toHaveLength(2);
  });
});
