/**
 * One page of a list: one strongly consistent Query over a partition's sort-key range,
 * whatever the list's size. Asks for one item more than the page to know whether another
 * page follows, so the last page never carries a token to an empty one.
 */
import { decodePageToken, encodePageToken } from '#core/paging';
import type { PageQuery } from '#core/schemas';
import { type Item, queryPage } from './client';

export interface PageRequest {
  /** Identifies the list inside paging tokens. */
  list: string;
  partition: string;
  prefix: string;
  limit: number;
  /** Sort key to resume after (from a verified token). */
  after?: string;
}

/** Checks the paging token before anything is read: a bad token is a 400 whatever else. */
export function pageRequest(list: string, partition: string, prefix: string, query: PageQuery): PageRequest {
  const after = query.nextToken === undefined ? undefined : decodePageToken(list, query.nextToken);
  return { list, partition, prefix, limit: query.limit, after };
}

/** The first string after every string that starts with `prefix` (`D#` → `D$`). */
const prefixEnd = (prefix: string) => prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/**
 * A later page names its range from where the last one ended (`BETWEEN`, the start itself
 * excluded by ExclusiveStartKey) rather than the whole prefix plus a start key: the same
 * items and cost on DynamoDB, and DynamoDB Local, which otherwise walks the prefix from its
 * beginning to the start key, answers as fast deep in a 50,000-item folder as on page one.
 */
export async function readPage(request: PageRequest): Promise<{ items: Item[]; nextToken?: string }> {
  const { items, lastKey } = await queryPage({
    ...(request.after === undefined
      ? {
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': request.partition, ':prefix': request.prefix },
        }
      : {
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :after AND :end',
          ExpressionAttributeValues: { ':pk': request.partition, ':after': request.after, ':end': prefixEnd(request.prefix) },
          ExclusiveStartKey: { PK: request.partition, SK: request.after },
        }),
    Limit: request.limit + 1,
  });
  const page = items.slice(0, request.limit);
  const more = items.length > request.limit || lastKey !== undefined;
  const last = page.at(-1);
  return { items: page, nextToken: more && last ? encodePageToken(request.list, last.SK as string) : undefined };
}
