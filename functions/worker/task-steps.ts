/**
 * Every kind of background task and the step that advances it: the use case it belongs to
 * (core/use-cases/) or, for a task of one item kind, that kind's module (core/items/).
 */
import { renameMemberships } from '#core/items/member';
import type { TaskSteps } from '#core/items/task';
import { verifyUpload } from '#core/use-cases/finish-upload';
import { refreshDepth } from '#core/use-cases/move-folder';
import { emptyTrashStep, purgeDocument, purgeSubtree } from '#core/use-cases/purge';
import { reclaimRepository } from '#core/use-cases/reclaim-repository';
import { releaseObjects } from '#core/use-cases/release-objects';
import { restoreSubtree } from '#core/use-cases/restore';
import { trashSubtree } from '#core/use-cases/trash';

export const taskSteps: TaskSteps = {
  'reclaim-repository': reclaimRepository,
  'rename-memberships': renameMemberships,
  'refresh-depth': refreshDepth,
  'trash-subtree': trashSubtree,
  'restore-subtree': restoreSubtree,
  'purge-subtree': purgeSubtree,
  'purge-document': purgeDocument,
  'release-objects': releaseObjects,
  'empty-trash': emptyTrashStep,
  'verify-upload': verifyUpload,
};
