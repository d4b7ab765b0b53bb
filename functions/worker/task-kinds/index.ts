/** Every kind of background task and the step that advances it. */
import type { TaskSteps } from '../tasks';
import { refreshDepth } from './depth';
import { renameMemberships } from './memberships';
import { purgeDocument, purgeSubtree, reclaimRepository } from './purge';
import { emptyTrash, restoreSubtree, trashSubtree } from './trash';

export const taskSteps: TaskSteps = {
  'reclaim-repository': reclaimRepository,
  'rename-memberships': renameMemberships,
  'refresh-depth': refreshDepth,
  'trash-subtree': trashSubtree,
  'restore-subtree': restoreSubtree,
  'purge-subtree': purgeSubtree,
  'purge-document': purgeDocument,
  'empty-trash': emptyTrash,
};
