/**
 * The service's limits (docs/api.md: Limits), in one place. Request-shape limits (names,
 * content, page size) are with the request schemas (core/schemas.ts) and names (core/names.ts).
 */

/** Folders nest at most this many levels below the root folder (the root is level 0). */
export const MAX_FOLDER_DEPTH = 50;
/** Members of one repository. */
export const MAX_MEMBERS = 1_000;
/** Repositories one user is a member of. */
export const MAX_REPOSITORIES_PER_USER = 1_000;
/** Days an item stays in the trash before it is purged. */
export const TRASH_DAYS = 30;
/** A document keeps at least its last REVISIONS_KEPT revisions, or all of the last REVISION_DAYS days. */
export const REVISIONS_KEPT = 100;
export const REVISION_DAYS = 30;
/** Days the change feed keeps a change (the contract asks for at least 30). */
export const FEED_DAYS = 31;

export const DAY_MS = 24 * 60 * 60 * 1000;
