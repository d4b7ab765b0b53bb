/**
 * What a request costs on AWS DynamoDB, from the items it touched. DynamoDB Local reports
 * consumed capacity, but not as AWS bills it (it under-counts transactional writes and
 * missing items), so the bench reports both: Local's figure, and this model, which applies
 * the published rules to the items' real sizes.
 *
 * - Item size: attribute names plus values (strings and binaries by their bytes, numbers by
 *   about one byte per two significant digits plus one, null and booleans 1 byte, lists and
 *   maps 3 bytes plus 1 per element plus the elements).
 * - Strongly consistent read: 1 read unit per 4 KB of each item (GetItem, BatchGetItem; an
 *   item that does not exist still costs the minimum, 1); a Query sums the sizes of the items
 *   it read, then rounds up to 4 KB.
 * - Transactional write: 2 write units per 1 KB of each item, the larger of its image before
 *   and after; a ConditionCheck is billed like a transactional write of the item it checks.
 */
/** An item as the document client reads and writes it (plain values, not attribute values). */
export type StoredItem = Record<string, unknown>;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

function numberSize(value: number): number {
  const digits = String(Math.abs(value))
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

export function valueSize(value: unknown): number {
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number') return numberSize(value);
  if (value === null || typeof value === 'boolean') return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueSize(element), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object') {
    return 3 + Object.entries(value).reduce((sum, [name, element]) => sum + 1 + utf8(name) + valueSize(element), 0);
  }
  return 0;
}

export function itemSize(item: StoredItem | undefined): number {
  if (!item) return 0;
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0);
}

/** Strongly consistent read of one item (missing: the minimum). */
export const readUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / 4096));
/** One action of a transactional write, on an item of the larger of its two images. */
export const transactionalWriteUnits = (bytes: number) => 2 * Math.max(1, Math.ceil(bytes / 1024));
