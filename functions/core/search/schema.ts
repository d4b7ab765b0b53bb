/**
 * The search index's schema, as migrations applied in order and recorded in
 * `search_schema_version` (./migrate.ts): at deploy by the stack's migration function, and at
 * every local start. Each statement is idempotent (`IF NOT EXISTS`, `CREATE OR REPLACE`), so a
 * migration cut short, or two run at once, leaves the same schema. Kept as TypeScript strings
 * rather than `.sql` files so that every bundle that needs them carries them, with no file to
 * copy beside it.
 *
 * One row per folder and document ever indexed (docs/data-model.md: Search index):
 * - `seq`: the position in its repository's change feed of the change that wrote the row. A row
 *   is only ever replaced by a higher `seq` (./search-index.ts), so a retried older change never
 *   overwrites a newer state.
 * - `trashed`: the item itself was deleted to the trash (not an item below a trashed folder: those
 *   are hidden by their ancestry at query time, so a folder's trash and restore touch one row).
 * - `deleted`: a tombstone (purged, or gone from the table): no data, only `seq`, so a late upsert
 *   never brings it back.
 * - a deleted repository's rows are removed, and its id kept in `search_dropped_repositories`:
 *   the tombstone of all its items, which no write of one of them passes (migration 2).
 * - `folder_id`: the parent folder. The `folderId` filter walks folder rows down from it at query
 *   time (a recursive query over folders only), so moving a folder rewrites one row, whatever is below.
 */
export interface Migration {
  version: number;
  statements: readonly string[];
}

/**
 * The SQL fold (the JavaScript one: ./fold.ts): NFKC, accents removed by `unaccent` (which also
 * maps `ß` to `ss`), lower case; `ς` becomes `σ` as full case folding does. IMMUTABLE so that
 * generated columns and indexes may use it: `unaccent` is only STABLE because its dictionary
 * could change, so the dictionary is named outright.
 */
const FOLD = `CREATE OR REPLACE FUNCTION search_fold(t text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $fold$ SELECT translate(lower(public.unaccent('public.unaccent'::regdictionary, normalize(t, NFKC))), 'ς', 'σ') $fold$`;

/** Name words as the query cuts them: runs of letters and digits (`Report-2024.pdf` → report, 2024, pdf). */
const NAME_WORDS = `CREATE OR REPLACE FUNCTION search_name_words(t text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $words$ SELECT to_tsvector('simple', regexp_replace(search_fold(t), '[^[:alnum:]]+', ' ', 'g')) $words$`;

/**
 * What snippets are cut with (`ts_headline`): English with accents removed, so that the original
 * text's `Café` is highlighted for the folded query's `cafe`. (No IF NOT EXISTS for a text search
 * configuration, hence the block.)
 */
const SNIPPET_CONFIGURATION = `DO $config$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'search_english') THEN
    CREATE TEXT SEARCH CONFIGURATION search_english (COPY = english);
    ALTER TEXT SEARCH CONFIGURATION search_english ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;
  END IF;
END $config$`;

/**
 * Drops up to `batch` rows of a deleted repository and records it as dropped, in one transaction
 * that first takes a lock no other write of the table shares (SHARE ROW EXCLUSIVE): a write of one
 * of its items that was under way has committed before the rows are read for deletion, and one
 * that comes after finds the repository dropped (./search-index.ts, upsertItem and removeItem).
 * A function, as the Data API runs one statement per call and a DO block takes no parameters.
 */
const DROP_REPOSITORY = `CREATE OR REPLACE FUNCTION search_drop_repository(repository text, batch integer) RETURNS integer
  LANGUAGE plpgsql
  AS $drop$
  DECLARE dropped integer;
  BEGIN
    LOCK TABLE search_items IN SHARE ROW EXCLUSIVE MODE;
    INSERT INTO search_dropped_repositories (repository_id) VALUES (repository) ON CONFLICT DO NOTHING;
    DELETE FROM search_items WHERE id IN (SELECT id FROM search_items WHERE repository_id = repository LIMIT batch);
    GET DIAGNOSTICS dropped = ROW_COUNT;
    RETURN dropped;
  END $drop$`;

export const migrations: readonly Migration[] = [
  {
    version: 1,
    statements: [
      'CREATE EXTENSION IF NOT EXISTS unaccent',
      'CREATE EXTENSION IF NOT EXISTS pg_trgm',
      FOLD,
      NAME_WORDS,
      `CREATE TABLE IF NOT EXISTS search_items (
        id text PRIMARY KEY,
        repository_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('document', 'folder')),
        folder_id text,
        name text NOT NULL DEFAULT '',
        content_type text,
        content_type_base text,
        size bigint,
        version integer,
        updated_at text,
        seq bigint NOT NULL,
        trashed boolean NOT NULL DEFAULT false,
        deleted boolean NOT NULL DEFAULT false,
        content text NOT NULL DEFAULT '',
        content_version integer,
        changed_at timestamptz,
        indexed_at timestamptz NOT NULL DEFAULT now(),
        name_fold text GENERATED ALWAYS AS (search_fold(name)) STORED,
        name_words tsvector GENERATED ALWAYS AS (search_name_words(name)) STORED,
        content_words tsvector GENERATED ALWAYS AS (to_tsvector('english', search_fold(content))) STORED
      )`,
      SNIPPET_CONFIGURATION,
      'CREATE INDEX IF NOT EXISTS search_items_name_words ON search_items USING gin (name_words)',
      'CREATE INDEX IF NOT EXISTS search_items_name_trigrams ON search_items USING gin (name_fold gin_trgm_ops)',
      'CREATE INDEX IF NOT EXISTS search_items_content_words ON search_items USING gin (content_words)',
      'CREATE INDEX IF NOT EXISTS search_items_repository ON search_items (repository_id)',
      "CREATE INDEX IF NOT EXISTS search_items_folders ON search_items (folder_id) WHERE kind = 'folder'",
      // How far a reindex has read the table (its scan's last key), so that it resumes where it stopped.
      `CREATE TABLE IF NOT EXISTS search_reindex (
        name text PRIMARY KEY,
        last_key text,
        items bigint NOT NULL DEFAULT 0,
        started_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`,
    ],
  },
  {
    version: 2,
    statements: [
      // Deleted repositories (../use-cases/reclaim-repository.ts): their rows went, no row of theirs comes back.
      `CREATE TABLE IF NOT EXISTS search_dropped_repositories (
        repository_id text PRIMARY KEY,
        dropped_at timestamptz NOT NULL DEFAULT now()
      )`,
      DROP_REPOSITORY,
    ],
  },
  {
    version: 3,
    statements: [
      // Ranking and phrases read each match's word list: out of line but not compressed, it is
      // read without being decompressed (a phrase of two words in half of 100,000 documents:
      // 490 → 350 ms on PGlite). Rows written from now on; a rebuild rewrites the others.
      'ALTER TABLE search_items ALTER COLUMN content_words SET STORAGE EXTERNAL',
    ],
  },
];

/** The table that records which migrations ran. */
export const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS search_schema_version (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;
