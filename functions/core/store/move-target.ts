/** The target of a move (a document into a folder, a folder into another): read, and judged. */
import { invalidField, notFound } from '../errors';
import { repositoryOf } from '../ids';
import type { Caller } from '../resources';
import { roleInBucket } from './access';
import type { Item } from './client';
import { aclKey, folderKey, type Key } from './keys';

/** What a move reads of its target: the folder, and the caller's role in the repository its id names. */
export function targetKeys(caller: Caller, folderId: string) {
  const repositoryId = repositoryOf(folderId);
  return repositoryId ? [folderKey(folderId), aclKey(repositoryId, caller.userId)] : [folderKey(folderId)];
}

/**
 * A move's target: 404 when it does not exist, is in the trash, or is in a repository the
 * caller is not a member of (exactly as if it did not exist); 400 when the caller can see it but
 * it is in another repository (moves stay in their repository).
 */
export function checkMoveTarget(
  caller: Caller,
  lookup: (key: Key) => Item | undefined,
  folderId: string,
  repositoryId: string,
  field = 'folderId',
) {
  const target = lookup(folderKey(folderId));
  if (!target || target.trash) throw notFound('Folder');
  const targetRepository = target.repositoryId as string;
  if (targetRepository === repositoryId) return;
  if (!roleInBucket(lookup(aclKey(targetRepository, caller.userId)), caller.userId)) throw notFound('Folder');
  throw invalidField(field, 'must be a folder of the same repository');
}
