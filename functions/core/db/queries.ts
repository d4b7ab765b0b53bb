/**
 * Queries: strongly consistent reads of a partition's sort-key range. A list's page (one Query
 * whatever the list's size, its token signed by core/paging.ts), a plain range for background
 * work, or a raw page of a Query.
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { decodePageToken, encodePageToken } from '#core/paging';
import type { PageQuery } from '#core/requests';
import { db, type Item, tableName } from './client';

export type QueryInput = Pick<QueryCommandInput, 'KeyConditionExpression' | 'ExpressionAttributeValues' | 'ExclusiveStartKey' | 'Limit'>;

/** One page of a partition, strongly consistent, in sort-key order. */
export async function queryPage(input: QueryInput): Promise<{ items: Item[]; lastKey?: Item }> {
  const result = await db().send(new QueryCommand({ ...input, TableName: tableName(), ConsistentRead: true }));
  return { items: result.Items ?? [], lastKey: result.LastEvaluatedKey };
}

export interface PageRequest {
  /** Identifies the list inside paging tokens. */
  list: string;
  partition: string;
  prefix: string;
  limit: number;
  /** The previous page's token, not yet checked: readPage checks it before its Query. */
  nextToken?: string;
  /** Newest first: the partition's range in descending sort-key order. */
  descending?: boolean;
}

/**
 * A page of a list. Its token is checked by readPage before the list is read (the key may have
 * to be read from Secrets Manager first, core/paging.ts): a bad token is a 400 whatever else,
 * as callers authorize only after readPage has answered.
 */
export function pageRequest(
  list: string,
  partition: string,
  prefix: string,
  query: PageQuery,
  options: { descending?: boolean } = {},
): PageRequest {
  return { list, partition, prefix, limit: query.limit, nextToken: query.nextToken, ...options };
}

/** The first string after every string that starts with `prefix` (`D#` → `D$`). */
const prefixEnd = (prefix: string) => prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/**
 * One page of a list. Asks for one item more than the page to know whether another page
 * follows, so the last page never carries a token to an empty one.
 */
export async function readPage(request: PageRequest): Promise<{ items: Item[]; nextToken?: string }> {
  const { items, lastKey } = await readPageItems(request);
  return pageOf(request, items, lastKey);
}

/**
 * What readPage reads: the page's items and one more (if there is one), and DynamoDB's last key.
 * A later page names its range from where the last one ended (`BETWEEN`, the start itself
 * excluded by ExclusiveStartKey) rather than the whole prefix plus a start key: the same
 * items and cost on DynamoDB, and DynamoDB Local, which otherwise walks the prefix from its
 * beginning to the start key, answers as fast deep in a 50,000-item folder as on page one.
 */
export async function readPageItems(request: PageRequest): Promise<{ items: Item[]; lastKey?: Item }> {
  const { partition, prefix, descending } = request;
  const after = request.nextToken === undefined ? undefined : await decodePageToken(request.list, request.nextToken);
  const range =
    after === undefined
      ? {
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': partition, ':prefix': prefix },
        }
      : {
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          // Newest first ends the range at the last key; oldest first starts it there.
          ExpressionAttributeValues: descending
            ? { ':pk': partition, ':from': prefix, ':to': after }
            : { ':pk': partition, ':from': after, ':to': prefixEnd(prefix) },
          ExclusiveStartKey: { PK: partition, SK: after },
        };
  return queryPage({ ...range, Limit: request.limit + 1, ...(descending ? { ScanIndexForward: false } : {}) });
}

/** A page of `items` (in the list's order, one more than the page if another page follows) and the token to the next. */
export async function pageOf(request: PageRequest, items: Item[], lastKey?: Item): Promise<{ items: Item[]; nextToken?: string }> {
  const page = items.slice(0, request.limit);
  const more = items.length > request.limit || lastKey !== undefined;
  const last = page.at(-1);
  return { items: page, nextToken: more && last ? await encodePageToken(request.list, last.SK as string) : undefined };
}

/**
 * Up to `limit` items of a partition whose sort keys lie in [from, to], after `after`: a plain
 * range read for background work (no paging token), strongly consistent.
 */
export async function readRange(partition: string, range: { from: string; to: string; after?: string; limit: number }): Promise<Item[]> {
  const { items } = await queryPage({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': partition, ':from': range.from, ':to': range.to },
    ...(range.after ? { ExclusiveStartKey: { PK: partition, SK: range.after } } : {}),
    Limit: range.limit,
  });
  return items;
}

/** Every sort key that starts with `prefix` lies in [prefix, prefixRange(prefix).to]. */
export const prefixRange = (prefix: string) => ({ from: prefix, to: prefixEnd(prefix) });
