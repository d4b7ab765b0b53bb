/**
 * Plain values ⇄ DynamoDB attribute values, for the fields of the requests the store sends.
 * Strings, numbers, booleans, null, lists, maps, string and number sets, binary; `undefined`
 * is left out (as the AWS document client does with removeUndefinedValues).
 */
export type AttributeValue =
  | { S: string }
  | { N: string }
  | { BOOL: boolean }
  | { NULL: true }
  | { L: AttributeValue[] }
  | { M: Record<string, AttributeValue> }
  | { SS: string[] }
  | { NS: string[] }
  | { B: string };

export function toAttribute(value: unknown): AttributeValue {
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot store the number ${value}`);
    return { N: String(value) };
  }
  if (typeof value === 'boolean') return { BOOL: value };
  if (value === null) return { NULL: true };
  if (value instanceof Uint8Array) return { B: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return { L: value.filter((v) => v !== undefined).map(toAttribute) };
  if (value instanceof Set) {
    const members = [...value];
    if (members.every((m) => typeof m === 'string')) return { SS: members };
    if (members.every((m) => typeof m === 'number')) return { NS: members.map(String) };
    throw new TypeError('a set must hold only strings or only numbers');
  }
  if (typeof value === 'object') return { M: toItem(value as Record<string, unknown>) };
  throw new TypeError(`cannot store a ${typeof value}`);
}

/** Builds objects with Object.fromEntries, so a name such as `__proto__` stays a plain property. */
export function toItem(item: Record<string, unknown>): Record<string, AttributeValue> {
  return Object.fromEntries(
    Object.entries(item)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, toAttribute(value)]),
  );
}

export function fromAttribute(value: AttributeValue): unknown {
  if ('S' in value) return value.S;
  if ('N' in value) return Number(value.N);
  if ('BOOL' in value) return value.BOOL;
  if ('NULL' in value) return null;
  if ('L' in value) return value.L.map(fromAttribute);
  if ('M' in value) return fromItem(value.M);
  if ('SS' in value) return new Set(value.SS);
  if ('NS' in value) return new Set(value.NS.map(Number));
  if ('B' in value) return Buffer.from(value.B, 'base64');
  throw new TypeError(`unknown attribute value ${JSON.stringify(value)}`);
}

export function fromItem(item: Record<string, AttributeValue>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, fromAttribute(value)]));
}

/** Fields holding one item (or key, or name → value map), and fields holding a list of them. */
const ITEM_FIELDS = new Set(['Item', 'Key', 'ExclusiveStartKey', 'LastEvaluatedKey', 'ExpressionAttributeValues']);
const ITEM_LIST_FIELDS = new Set(['Items', 'Keys']);

/**
 * Converts every item-valued field of a request or response, wherever it sits (a
 * TransactWriteItems' `Put.Item`, a BatchGetItem's `RequestItems.<table>.Keys`…);
 * `Responses` maps table names to lists of items.
 */
export function convertItems(value: unknown, convert: (item: any) => Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((element) => convertItems(element, convert));
  if (value === null || typeof value !== 'object') return value;
  const fields = Object.entries(value)
    .filter(([, field]) => field !== undefined)
    .map(([name, field]): [string, unknown] => {
      if (ITEM_FIELDS.has(name)) return [name, convert(field)];
      if (ITEM_LIST_FIELDS.has(name)) return [name, (field as object[]).map(convert)];
      if (name === 'Responses') {
        return [name, Object.fromEntries(Object.entries(field as Record<string, object[]>).map(([table, items]) => [table, items.map(convert)]))];
      }
      return [name, convertItems(field, convert)];
    });
  return Object.fromEntries(fields);
}
