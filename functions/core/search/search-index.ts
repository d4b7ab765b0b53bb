/**
 * The search index (docs/api.md: Search; docs/data-model.md: Search index): the one module that
 * knows its SQL. Everything above it (the worker's indexer, the search use case) talks about
 * items, queries and hits, so another engine (OpenSearch) would replace this module only.
 *
 * Writes are guarded by the feed position (`seq`) of the change that made them: a row is only
 * replaced by a higher one, a tombstone included, so a retried older change never overwrites a
 * newer state and a late upsert never brings a purged item back.
 */
import { execute, Params, type Row } from './database';
import type { ParsedQuery, Term } from './query';

export type ItemKind = 'document' | 'folder';

/** An item as the index keeps it. */
export interface IndexedItem {
  id: string;
  repositoryId: string;
  kind: ItemKind;
  /** The parent folder (a folder's parent; null for a root folder). */
  folderId: string | null;
  name: string;
  contentType?: string;
  size?: number;
  version: number;
  updatedAt: string;
  /** Deleted to the trash itself (not merely below a trashed folder). */
  trashed: boolean;
  /** The version whose content `content` is (documents); undefined: keep the content indexed. */
  contentVersion?: number;
  /** The searchable text (first 1 MiB); ignored when `keepContent`. */
  content?: string;
  /** When the change was written (for the index-lag metric). */
  changedAt?: string;
}

/** The type of a `contentType`, lower case, without parameters (`Text/Plain; charset=x` → `text/plain`). */
export const baseContentType = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();

/** The content version indexed for a document, to skip reading content that did not change. */
export async function indexedContentVersion(id: string): Promise<number | undefined> {
  return (await indexedContentVersions([id])).get(id);
}

/** `indexedContentVersion` of several documents in one statement (the rebuild's page): those that have one. */
export async function indexedContentVersions(ids: readonly string[]): Promise<Map<string, number>> {
  const versions = new Map<string, number>();
  if (ids.length === 0) return versions;
  const rows = await execute(
    `SELECT id, content_version FROM search_items
     WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND NOT deleted AND content_version IS NOT NULL`,
    [JSON.stringify(ids)],
  );
  for (const row of rows) versions.set(row.id as string, Number(row.content_version));
  return versions;
}

/** SQL: the repository (a placeholder) was not deleted (./schema.ts, migration 2). */
const notDropped = (repository: string) => `NOT EXISTS (SELECT 1 FROM search_dropped_repositories d WHERE d.repository_id = ${repository})`;

/**
 * Writes the item unless a change at `seq` or later is indexed already, or its repository was deleted. Without `content`
 * (its version unchanged), the content indexed stays.
 */
export async function upsertItem(item: IndexedItem, seq: number): Promise<void> {
  const p = new Params();
  const keep = item.content === undefined;
  const repository = p.add(item.repositoryId);
  const sql = `INSERT INTO search_items AS s (id, repository_id, kind, folder_id, name, content_type, content_type_base, size, version,
      updated_at, seq, trashed, deleted, content, content_version, changed_at, indexed_at)
    SELECT ${p.add(item.id)}, ${repository}, ${p.add(item.kind)}, ${p.add(item.folderId)}, ${p.add(item.name)},
      ${p.add(item.contentType ?? null)}, ${p.add(item.contentType ? baseContentType(item.contentType) : null)}, ${p.add(item.size ?? null)},
      ${p.add(item.version)}, ${p.add(item.updatedAt)}, ${p.add(seq)}, ${p.add(item.trashed)}, false, ${p.add(indexableText(item.content ?? ''))},
      ${p.add(item.contentVersion ?? null)}, ${p.add(item.changedAt ?? null)}::timestamptz, now()
    WHERE ${notDropped(repository)}
    ON CONFLICT (id) DO UPDATE SET repository_id = excluded.repository_id, kind = excluded.kind, folder_id = excluded.folder_id,
      name = excluded.name, content_type = excluded.content_type, content_type_base = excluded.content_type_base, size = excluded.size,
      version = excluded.version, updated_at = excluded.updated_at, seq = excluded.seq, trashed = excluded.trashed, deleted = false,
      ${keep ? '' : 'content = excluded.content, content_version = excluded.content_version,'}
      changed_at = excluded.changed_at, indexed_at = now()
    WHERE s.seq < excluded.seq`;
  await execute(sql, p.values);
}

/**
 * Text as PostgreSQL can keep it and the Data API can carry it:
 * - PostgreSQL's `text` refuses U+0000 ("invalid byte sequence for encoding UTF8: 0x00"), which
 *   a file's bytes or an inline text may hold;
 * - in the request's JSON every other control character takes 6 bytes, so the first 1 MiB of a
 *   file of them would be a request over the Data API's 4 MiB (a lone surrogate, 6 bytes too).
 * A control character separates words no more than a space does; tab, line feed and carriage
 * return stay (2 bytes each in JSON, like a quote: 1 MiB of text is at most ~2 MiB).
 */
const CONTROL = /[^\P{Cc}\t\n\r]/gu; // a control character other than tab, line feed and carriage return
const indexableText = (text: string) => text.toWellFormed().replace(CONTROL, ' ');

/**
 * The item is gone (purged, or no longer in the table): a tombstone at `seq`. A folder's
 * tombstone takes everything below it along (a purge makes one change for the whole subtree).
 */
export async function removeItem(item: { id: string; repositoryId: string; kind: ItemKind }, seq: number): Promise<void> {
  const p = new Params();
  const id = p.add(item.id);
  const at = p.add(seq);
  const repository = p.add(item.repositoryId);
  await execute(
    `INSERT INTO search_items AS s (id, repository_id, kind, seq, deleted)
     SELECT ${id}, ${repository}, ${p.add(item.kind)}, ${at}, true
     WHERE ${notDropped(repository)}
     ON CONFLICT (id) DO UPDATE SET deleted = true, name = '', content = '', content_version = NULL, seq = excluded.seq, indexed_at = now()
     WHERE s.seq < excluded.seq`,
    p.values,
  );
  if (item.kind !== 'folder') return;
  await execute(
    `WITH RECURSIVE below AS (
       SELECT c.id FROM search_items c WHERE c.folder_id = $1
       UNION SELECT c.id FROM search_items c JOIN below b ON c.folder_id = b.id
     )
     UPDATE search_items SET deleted = true, name = '', content = '', content_version = NULL, seq = $2, indexed_at = now()
     WHERE id IN (SELECT id FROM below) AND seq < $2`,
    [item.id, seq],
  );
}

/** Rows a call of `dropRepository` deletes at most (a task step's worth). */
export const DROP_BATCH = 1_000;

/**
 * A deleted repository leaves the index: up to DROP_BATCH of its rows go (tombstones too), and it
 * is recorded as dropped, so no later write of one of its items (a retried change, a rebuild
 * that read the item before its purge) brings a row back. Returns how many rows went: fewer than
 * DROP_BATCH, and none are left.
 */
export async function dropRepository(repositoryId: string): Promise<number> {
  const rows = await execute('SELECT search_drop_repository($1, $2::int) AS dropped', [repositoryId, DROP_BATCH]);
  return Number(rows[0]?.dropped ?? 0);
}

// ---------------------------------------------------------------------------------------------
// Searching.

export interface SearchRequest {
  query: ParsedQuery;
  /** The repositories the caller may see now (never empty: the caller has none, there is nothing to ask). */
  repositoryIds: readonly string[];
  /** Only what is below this folder, at any depth. */
  folderId?: string;
  kind?: ItemKind;
  /** A type (`application/pdf`) or a prefix ending in `/` (`image/`), lower case. */
  contentType?: string;
  offset: number;
  limit: number;
}

export interface IndexHit {
  kind: ItemKind;
  id: string;
  repositoryId: string;
  folderId: string;
  name: string;
  contentType?: string;
  size?: number;
  updatedAt: string;
  matchedName: boolean;
  matchedContent: boolean;
  /** ts_headline's excerpt, the matched words between SNIPPET_START and SNIPPET_END. */
  headline?: string;
}

export const SNIPPET_START = '\uE000';
export const SNIPPET_END = '\uE001';

const likePattern = (word: string) => `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** SQL for "the term matches the name", its text in parameters. */
function nameMatch(term: Term, p: Params): string {
  if (term.words.length > 1) return `i.name_words @@ phraseto_tsquery('simple', ${p.add(term.words.join(' '))})`;
  const word = term.words[0]!;
  // Any part of 3 characters or more (trigram index); a shorter word: a word of the name beginning with it.
  if ([...word].length >= 3) return `i.name_fold LIKE ${p.add(likePattern(word))}`;
  return `i.name_words @@ to_tsquery('simple', ${p.add(`'${word}':*`)})`;
}

/** SQL for the term's content query (English stems; a phrase keeps its order). */
const contentQuery = (term: Term, p: Params) =>
  `${term.words.length > 1 ? 'phraseto_tsquery' : 'plainto_tsquery'}('english', ${p.add(term.words.join(' '))})`;

export async function searchItems(request: SearchRequest): Promise<IndexHit[]> {
  const p = new Params();
  const repos = p.add(JSON.stringify(request.repositoryIds));
  const termSql = new Map<Term, { name: string; content: string }>();
  const sqlOf = (term: Term) => {
    let sql = termSql.get(term);
    if (!sql) {
      sql = { name: nameMatch(term, p), content: contentQuery(term, p) };
      termSql.set(term, sql);
    }
    return sql;
  };
  const matches = (term: Term) => `(${sqlOf(term).name} OR i.content_words @@ ${sqlOf(term).content})`;
  const required = request.query.required.map((group) => `(${group.map(matches).join(' OR ')})`);
  const excluded = request.query.excluded.map((term) => `NOT ${matches(term)}`);
  const positive = request.query.required.flat();
  const nameScore = positive.map((term) => `(${sqlOf(term).name})::int`).join(' + ');
  // The same as `nameScore > 0`, in a form the name indexes can answer.
  const inName = `(${positive.map((term) => sqlOf(term).name).join(' OR ')})`;
  // All required groups (for ranking and snippets), and any of their terms (did the content match at all).
  const allContent = request.query.required.map((group) => `(${group.map((t) => sqlOf(t).content).join(' || ')})`).join(' && ');
  const anyContent = positive.map((t) => sqlOf(t).content).join(' || ');

  const filters: string[] = [];
  if (request.kind) filters.push(`i.kind = ${p.add(request.kind)}`);
  if (request.contentType) {
    filters.push(
      request.contentType.endsWith('/')
        ? `i.content_type_base LIKE ${p.add(`${request.contentType.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`
        : `i.content_type_base = ${p.add(request.contentType)}`,
    );
  }
  const below = request.folderId
    ? `, below AS (
        SELECT ${p.add(request.folderId)}::text AS id
        UNION SELECT c.id FROM search_items c JOIN below b ON c.folder_id = b.id WHERE c.kind = 'folder' AND NOT c.deleted AND NOT c.trashed
      )`
    : '';
  if (request.folderId) filters.push('i.folder_id IN (SELECT id FROM below)');

  const where = `i.repository_id IN (SELECT id FROM repos) AND NOT i.deleted AND NOT i.trashed AND i.folder_id IS NOT NULL
        AND i.folder_id NOT IN (SELECT id FROM hidden)
        ${filters.map((f) => `AND ${f}`).join(' ')}
        AND ${required.join(' AND ')}
        ${excluded.map((e) => `AND ${e}`).join(' ')}`;
  const itemColumns = 'i.id, i.kind, i.repository_id, i.folder_id, i.name, i.content_type, i.size, i.updated_at, i.content';
  const rank = `ts_rank_cd(i.content_words, ${allContent}) AS content_rank`;
  const nameColumns = `${itemColumns}, ${nameScore} AS name_score, i.content_words @@ (${anyContent}) AS content_matched, ${rank}`;
  // A content-only hit matched no term in its name, so every required group in its content:
  // known without reading its word list once more.
  const contentColumns = `${itemColumns}, 0 AS name_score, true AS content_matched, ${rank}`;
  const end = p.add(request.offset + request.limit);
  // Two parts, in the order of the contract: hits in the name first, then hits only in the content.
  // The content-only part runs only when the name hits do not fill the page (a one-time filter):
  // ranking content reads every match's word list, which for a word in half the documents is most
  // of the query's time, and is not needed when the name hits come first anyway.
  const sql = `WITH RECURSIVE repos AS (SELECT jsonb_array_elements_text(${repos}::jsonb) AS id),
    hidden AS (
      SELECT f.id FROM search_items f WHERE f.kind = 'folder' AND f.trashed AND NOT f.deleted AND f.repository_id IN (SELECT id FROM repos)
      UNION SELECT c.id FROM search_items c JOIN hidden h ON c.folder_id = h.id WHERE c.kind = 'folder'
    )${below},
    name_hits AS MATERIALIZED (
      SELECT ${nameColumns} FROM search_items i
      WHERE ${inName} AND ${where}
      ORDER BY name_score DESC, content_rank DESC, i.updated_at DESC, i.id
      LIMIT ${end}
    ),
    content_hits AS MATERIALIZED (
      SELECT ${contentColumns} FROM search_items i
      WHERE (SELECT count(*) FROM name_hits) < ${end} AND ${where} AND NOT ${inName}
      ORDER BY content_rank DESC, i.updated_at DESC, i.id
      LIMIT ${end}
    ),
    hits AS (
      SELECT * FROM (SELECT *, 0 AS part FROM name_hits UNION ALL SELECT *, 1 AS part FROM content_hits) both_parts
      ORDER BY part, name_score DESC, content_rank DESC, updated_at DESC, id
      LIMIT ${p.add(request.limit)} OFFSET ${p.add(request.offset)}
    )
    SELECT id, kind, repository_id, folder_id, name, content_type, size, updated_at, name_score, content_matched,
      CASE WHEN content_matched THEN ts_headline('search_english', content, ${allContent},
        'MaxFragments=1, MaxWords=35, MinWords=12, ShortWord=2, StartSel=${SNIPPET_START}, StopSel=${SNIPPET_END}') END AS headline
    FROM hits
    ORDER BY part, name_score DESC, content_rank DESC, updated_at DESC, id`;
  const rows = await execute(sql, p.values);
  return rows.map(hitOf);
}

function hitOf(row: Row): IndexHit {
  return {
    kind: row.kind as ItemKind,
    id: row.id as string,
    repositoryId: row.repository_id as string,
    folderId: row.folder_id as string,
    name: row.name as string,
    ...(row.kind === 'document' ? { contentType: row.content_type as string, size: Number(row.size) } : {}),
    updatedAt: row.updated_at as string,
    matchedName: Number(row.name_score) > 0,
    matchedContent: row.content_matched === true,
    ...(typeof row.headline === 'string' ? { headline: row.headline } : {}),
  };
}

/** How far behind the newest change the index is: now minus the commit time of the last change it applied (ms). */
export async function indexLagMs(): Promise<number | undefined> {
  const rows = await execute('SELECT (extract(epoch FROM now() - max(changed_at)) * 1000)::bigint AS lag FROM search_items', []);
  return rows[0]?.lag == null ? undefined : Number(rows[0].lag);
}
