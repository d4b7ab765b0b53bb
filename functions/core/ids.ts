import { randomBytes } from 'node:crypto';

/** Every id the API takes or gives (docs/api.md): opaque, URL-safe. */
export const ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

/** A new service-made id: 128 random bits, 22 URL-safe characters. Repositories get these. */
export const newId = () => randomBytes(16).toString('base64url');
const ID_LENGTH = 22;

/**
 * Folder ids and service-made document ids start with their repository's id (a root folder's
 * id *is* its repository's id), so a read or a write knows whose role to check before it reads
 * anything: the role travels in the same request (docs/data-model.md). 44 characters, inside
 * the 64 ids may have. A document never leaves its repository, so the prefix stays true.
 */
export const newFolderId = (repositoryId: string) => `${repositoryId}${newId()}`;
export const newDocumentId = newFolderId;

/**
 * The repository an id names, or undefined when it names none (a client-chosen document id
 * may). Only the item itself proves it: the id is input, so the store checks the item's
 * `repositoryId` before it trusts a role read for this repository.
 */
export function repositoryOf(id: string): string | undefined {
  if (id.length === ID_LENGTH) return id;
  if (id.length === 2 * ID_LENGTH) return id.slice(0, ID_LENGTH);
  return undefined;
}

export const now = () => new Date().toISOString();
