/**
 * The service's limits (docs/api.md: Limits), in one place. Request-shape limits (names,
 * content, page size) are with the request schemas (core/requests.ts) and names (core/names.ts).
 */

/** The three limits a test may lower (see `testOverrides`). */
const OVERRIDABLE = ['folderDepth', 'members', 'repositoriesPerUser'] as const;
type Overridable = (typeof OVERRIDABLE)[number];

/**
 * Tests only: `DOCUMENTS_TEST_LIMITS='{"members":5,"repositoriesPerUser":5}'` lowers these limits
 * in a vitest worker, so a test of a limit seeds 5 items through the API, not 999
 * (vitest.config.ts sets it for test/repositories/limits.test.ts alone). Honoured only where vitest runs
 * (it sets VITEST in its workers): a deployed function or `npm start` always has the values below,
 * which test/unit/limits.test.ts holds to docs/api.md. A name or value it does not know fails loudly.
 */
function testOverrides(): Partial<Record<Overridable, number>> {
  const raw = process.env.DOCUMENTS_TEST_LIMITS;
  if (!raw || !process.env.VITEST) return {};
  const parsed = JSON.parse(raw) as Record<string, unknown>;
  for (const [name, value] of Object.entries(parsed)) {
    if (!(OVERRIDABLE as readonly string[]).includes(name)) throw new Error(`DOCUMENTS_TEST_LIMITS: no limit named ${name}`);
    if (!Number.isInteger(value) || (value as number) < 1) throw new Error(`DOCUMENTS_TEST_LIMITS: ${name} must be a whole number ≥ 1`);
  }
  return parsed as Partial<Record<Overridable, number>>;
}
const overrides = testOverrides();

/** Folders nest at most this many levels below the root folder (the root is level 0). */
export const MAX_FOLDER_DEPTH = overrides.folderDepth ?? 50;
/** Members of one repository. */
export const MAX_MEMBERS = overrides.members ?? 1_000;
/** Repositories one user is a member of. */
export const MAX_REPOSITORIES_PER_USER = overrides.repositoriesPerUser ?? 1_000;
/** Days an item stays in the trash before it is purged. */
export const TRASH_DAYS = 30;
/** A document keeps at least its last REVISIONS_KEPT revisions, or all of the last REVISION_DAYS days. */
export const REVISIONS_KEPT = 100;
export const REVISION_DAYS = 30;
/** Days the change feed keeps a change (the contract asks for at least 30). */
export const FEED_DAYS = 31;

export const DAY_MS = 24 * 60 * 60 * 1000;

/** A repository's storage quota by default: 10 GiB (docs/api.md: Files). */
export const DEFAULT_QUOTA_BYTES = 10 * 1024 * 1024 * 1024;

/**
 * A repository's storage quota in bytes: the stack's `quotaBytes` setting, which reaches the
 * functions as QUOTA_BYTES (lib/stack/config.ts); DEFAULT_QUOTA_BYTES without it. Read on each
 * use, so a test may start a service with a small quota.
 */
export function quotaBytes(): number {
  const raw = process.env.QUOTA_BYTES;
  if (raw === undefined || raw === '') return DEFAULT_QUOTA_BYTES;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`QUOTA_BYTES must be a whole number of bytes, not "${raw}"`);
  return value;
}

/** How long an upload stays open (docs/api.md: Files). Tests only may shorten it (UPLOAD_EXPIRY_SECONDS, where vitest runs). */
export function uploadLifetimeMs(): number {
  const raw = process.env.UPLOAD_EXPIRY_SECONDS;
  if (raw && process.env.VITEST) return Number(raw) * 1_000;
  return 24 * 60 * 60 * 1_000;
}

/**
 * A whole number as the docs write it (`1,000`). Not `toLocaleString('en-US')`: its first call
 * loads ICU's number formats, ~20 ms of a cold start when a module's top level calls it.
 */
export const formatCount = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');
