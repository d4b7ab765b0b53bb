/**
 * GET /search (docs/api.md: Search): the caller's repositories as they are now (their
 * memberships, from the table), the filters checked against what the caller may see (`404`
 * otherwise), then one query of the index, and hits as the API shows them.
 */
import { createHash } from 'node:crypto';
import { notFound } from '../errors';
import { getFolder } from '../items/folder';
import { listRepositories } from '../items/repository';
import { decodePageToken, encodePageToken } from '../paging';
import type { SearchQuery } from '../requests';
import type { Caller, Page, SearchHit } from '../resources';
import { parseQuery } from './query';
import { type IndexHit, SNIPPET_END, SNIPPET_START, searchItems } from './search-index';

export const MAX_SNIPPET_CHARS = 300;

/** Every repository the caller is a member of now (a deleted one is left out). */
async function memberRepositories(caller: Caller): Promise<string[]> {
  const ids: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await listRepositories(caller, { limit: 100, ...(nextToken ? { nextToken } : {}) });
    ids.push(...page.items.map((repository) => repository.id));
    nextToken = page.nextToken;
  } while (nextToken);
  return ids;
}

/** The list a token belongs to: this caller, this query and these filters. */
function listOf(caller: Caller, query: SearchQuery): string {
  const { limit: _limit, nextToken: _token, ...rest } = query;
  const digest = createHash('sha256')
    .update(JSON.stringify([caller.userId, rest]))
    .digest('base64url');
  return `search:${digest}`;
}

export async function search(caller: Caller, query: SearchQuery): Promise<Page<SearchHit>> {
  const parsed = parseQuery(query.q);
  const list = listOf(caller, query);
  const offset = query.nextToken ? Number(await decodePageToken(list, query.nextToken)) : 0;
  let repositoryIds = await memberRepositories(caller);
  if (query.repositoryId) {
    if (!repositoryIds.includes(query.repositoryId)) throw notFound('Repository');
    repositoryIds = [query.repositoryId];
  }
  if (query.folderId) {
    const folder = await getFolder(caller, query.folderId);
    if (!repositoryIds.includes(folder.repositoryId)) throw notFound('Folder');
    repositoryIds = [folder.repositoryId];
  }
  if (repositoryIds.length === 0) return { items: [] };
  const hits = await searchItems({
    query: parsed,
    repositoryIds,
    ...(query.folderId ? { folderId: query.folderId } : {}),
    ...(query.kind ? { kind: query.kind } : {}),
    ...(query.contentType ? { contentType: query.contentType.toLowerCase() } : {}),
    offset,
    limit: query.limit + 1,
  });
  const items = hits.slice(0, query.limit).map(hitOf);
  return hits.length > query.limit ? { items, nextToken: await encodePageToken(list, String(offset + query.limit)) } : { items };
}

function hitOf(hit: IndexHit): SearchHit {
  const snippet = hit.matchedContent && hit.headline ? snippetOf(hit.headline) : undefined;
  return {
    kind: hit.kind,
    id: hit.id,
    repositoryId: hit.repositoryId,
    folderId: hit.folderId,
    name: hit.name,
    ...(hit.kind === 'document' ? { contentType: hit.contentType!, size: hit.size! } : {}),
    updatedAt: hit.updatedAt,
    matched: hit.matchedName ? (hit.matchedContent ? 'both' : 'name') : 'content',
    ...(snippet ? { snippet } : {}),
  };
}

/**
 * The excerpt without its markers, with the `[start, end)` UTF-16 offsets of the marked words;
 * cut to MAX_SNIPPET_CHARS (never inside a surrogate pair), highlights cut with it.
 */
export function snippetOf(headline: string): { text: string; highlights: [number, number][] } {
  let text = '';
  const highlights: [number, number][] = [];
  let start: number | undefined;
  for (const char of headline.trim()) {
    if (char === SNIPPET_START) start = text.length;
    else if (char === SNIPPET_END) {
      if (start !== undefined && text.length > start) highlights.push([start, text.length]);
      start = undefined;
    } else text += char;
  }
  if (text.length > MAX_SNIPPET_CHARS) {
    let cut = MAX_SNIPPET_CHARS;
    const code = text.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
    text = text.slice(0, cut);
  }
  return {
    text,
    highlights: highlights.filter(([from]) => from < text.length).map(([from, to]): [number, number] => [from, Math.min(to, text.length)]),
  };
}
