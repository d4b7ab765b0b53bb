import { randomBytes } from 'node:crypto';

/** Every id the API takes or gives (API.md §1): opaque, URL-safe. */
export const ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

/** A new service-made id: 128 random bits, 22 URL-safe characters. Repositories get these. */
export const newId = () => randomBytes(16).toString('base64url');
const ID_LENGTH = 22;

/**
 * A folder id starts with its repository's id (a root folder's id *is* its repository's id),
 * so a write into a folder knows whose role to check without reading the folder first: one
 * transaction, no read before it (docs/data-model.md). 44 characters, inside API.md's 64.
 */
export const newFolderId = (repositoryId: string) => `${repositoryId}${newId()}`;

/**
 * The repository a folder id names, or undefined when the id cannot be a folder's. Only an
 * existence check on the folder in that repository proves it is one (the id is input).
 */
export function repositoryOfFolder(folderId: string): string | undefined {
  if (folderId.length === ID_LENGTH) return folderId;
  if (folderId.length === 2 * ID_LENGTH) return folderId.slice(0, ID_LENGTH);
  return undefined;
}

export const now = () => new Date().toISOString();
