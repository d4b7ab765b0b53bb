/**
 * Conditions on one item of a transaction: the generic ones every item kind uses, and the one
 * way to join them. A condition on what only one kind of item holds (a folder's place, a trash
 * mark) is built beside that kind, in ../items/, from these.
 */

/** A condition: its expression, and the names and values its placeholders stand for. */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/** The item is not there (a put that creates, a name that must be free). */
export const itemIsAbsent: Condition = { expression: 'attribute_not_exists(PK)' };
/** The item is there. */
export const itemExists: Condition = { expression: 'attribute_exists(PK)' };

/**
 * The attribute holds `value` (`#attribute = :attribute`). False when the item or the attribute
 * is missing, as every comparison in a condition.
 */
export const attributeEquals = (attribute: string, value: unknown): Condition => ({
  expression: `#${attribute} = :${attribute}`,
  names: { [`#${attribute}`]: attribute },
  values: { [`:${attribute}`]: value },
});
/** The item has this id: an entry still names the item it was written for. */
export const idIs = (id: string): Condition => attributeEquals('id', id);
/** The item is at the version read (and nothing else is said of it: see trash.ts's liveAtVersion). */
export const versionIs = (version: number): Condition => attributeEquals('version', version);

/** The attribute holds one of `values`; `name` is its placeholder (to join it to other conditions on one item). */
export const attributeIn = (attribute: string, values: readonly string[], name = '#attribute'): Condition => ({
  expression: `${name} IN (${values.map((_, i) => `:value${i}`).join(', ')})`,
  names: { [name]: attribute },
  values: Object.fromEntries(values.map((value, i) => [`:value${i}`, value])),
});

/** Conditions that must all hold, each in parentheses (their placeholders must not clash). */
export const allOf = (...conditions: Condition[]): Condition => ({
  expression: conditions.map((c) => `(${c.expression})`).join(' AND '),
  names: Object.assign({}, ...conditions.map((c) => c.names)),
  values: Object.assign({}, ...conditions.map((c) => c.values)),
});
