/** Part plans and the attachment header of files (functions/core/files/). */
import { describe, expect, it } from 'vitest';
import { attachment } from '#core/files/disposition';
import { MAX_FILE_BYTES, MAX_PARTS, MIN_PART_BYTES, partLength, partPlan } from '#core/files/parts';

const MiB = 1024 * 1024;

describe('partPlan', () => {
  it('makes a file of at most one part size one part, an empty one included', () => {
    expect(partPlan(0)).toEqual({ partSize: MIN_PART_BYTES, partCount: 1 });
    expect(partPlan(MIN_PART_BYTES)).toEqual({ partSize: MIN_PART_BYTES, partCount: 1 });
    expect(partPlan(MIN_PART_BYTES + 1)).toEqual({ partSize: MIN_PART_BYTES, partCount: 2 });
  });

  it('keeps every size within 10,000 parts of whole MiB, each at least 5 MiB as S3 requires', () => {
    for (const size of [1, 5 * MiB, 1024 * MiB, 80_000 * MiB, 80_000 * MiB + 1, 1024 ** 4, MAX_FILE_BYTES]) {
      const plan = partPlan(size);
      expect(plan.partCount, `${size}`).toBeLessThanOrEqual(MAX_PARTS);
      expect(plan.partSize % MiB).toBe(0);
      expect(plan.partSize).toBeGreaterThanOrEqual(5 * MiB);
      expect(plan.partSize * plan.partCount).toBeGreaterThanOrEqual(size);
      expect(plan.partSize * (plan.partCount - 1)).toBeLessThan(Math.max(size, 1));
    }
    expect(partPlan(MAX_FILE_BYTES)).toEqual({ partSize: 525 * MiB, partCount: 9987 });
  });

  it('refuses what S3 cannot hold', () => {
    expect(() => partPlan(MAX_FILE_BYTES + 1)).toThrow(RangeError);
    expect(() => partPlan(-1)).toThrow(RangeError);
    expect(() => partPlan(1.5)).toThrow(RangeError);
  });

  it('gives each part its length, the last the rest', () => {
    const size = 2 * MIN_PART_BYTES + 3;
    const plan = partPlan(size);
    expect([1, 2, 3].map((n) => partLength(plan, size, n))).toEqual([MIN_PART_BYTES, MIN_PART_BYTES, 3]);
    expect(() => partLength(plan, size, 4)).toThrow(RangeError);
    expect(() => partLength(plan, size, 0)).toThrow(RangeError);
  });
});

describe('attachment', () => {
  it('names the file exactly in filename*, and in ASCII in filename', () => {
    expect(attachment('report.pdf')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(attachment('Übersicht "Q3" 100%.pdf')).toBe(
      `attachment; filename="_bersicht _Q3_ 100_.pdf"; filename*=UTF-8''%C3%9Cbersicht%20%22Q3%22%20100%25.pdf`,
    );
    expect(attachment("it's (draft).txt")).toBe(`attachment; filename="it's (draft).txt"; filename*=UTF-8''it%27s%20%28draft%29.txt`);
  });

  it('cannot be broken out of by a name with quotes, backslashes or line breaks', () => {
    const header = attachment('a"; filename="evil.html\\\r\nX-Injected: 1');
    expect(header).not.toMatch(/[\r\n]/);
    expect(header.match(/"/g)).toHaveLength(2);
  });
});
