/**
 * How a file is cut into parts for an upload (docs/api.md: Files). S3 multipart allows 10,000
 * parts of 5 MiB to 5 GiB each (the last part smaller), and objects up to 5 TiB. The service picks
 * the smallest part size, a whole number of MiB and at least 8 MiB, that keeps a file within
 * 10,000 parts: small parts resume cheaply after a failure, and 8 MiB is where the SDKs' own
 * multipart uploads start. A file of at most one part size is one part: one presigned PUT.
 */
const MiB = 1024 * 1024;

export const MAX_FILE_BYTES = 5 * 1024 * 1024 * MiB;
export const MAX_PARTS = 10_000;
export const MIN_PART_BYTES = 8 * MiB;
/** URLs for at most this many parts are handed out at once (the 201's `parts`, `POST /uploads/{id}/parts`). */
export const PART_URLS_PER_REQUEST = 100;

export interface PartPlan {
  partSize: number;
  partCount: number;
}

export function partPlan(size: number): PartPlan {
  if (!Number.isSafeInteger(size) || size < 0 || size > MAX_FILE_BYTES) throw new RangeError(`no part plan for ${size} bytes`);
  const partSize = Math.max(MIN_PART_BYTES, Math.ceil(size / MAX_PARTS / MiB) * MiB);
  return { partSize, partCount: Math.max(1, Math.ceil(size / partSize)) };
}

/** The byte length of part `number` (1-based) of a file of `size` bytes. */
export function partLength(plan: PartPlan, size: number, number: number): number {
  if (!Number.isInteger(number) || number < 1 || number > plan.partCount) throw new RangeError(`no part ${number}`);
  return number < plan.partCount ? plan.partSize : size - plan.partSize * (plan.partCount - 1);
}

/** Part numbers 1 to `count`. */
export const partNumbers = (count: number) => Array.from({ length: Math.max(0, count) }, (_, i) => i + 1);
