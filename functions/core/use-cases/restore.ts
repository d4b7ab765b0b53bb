/**
 * Restoring an item from the trash (POST /{id}/trash/{itemId}/restore): the item back in a
 * folder, its mark cleared, its record gone, and for a folder the task that brings back what is
 * below it (restoreSubtree). Composed of ../items/trash.ts, document.ts, folder.ts, entry.ts and
 * ./move-folder.ts (a folder restored elsewhere is placed as a move is).
 *
 * Unmarking: a restore ends its deletion for good (a later deletion has a new token), so a
 * restore task clears that deletion's marks whatever happened since, even if the folder was
 * deleted again or moved (a newer deletion's task replaces the marks itself). Nothing is left
 * half in the trash.
 */
import { ConditionFailed, check, optimistically, put, type TransactItem, transactWrite, update } from '../db/client';
import { conflict, HttpError } from '../errors';
import { now } from '../ids';
import { recordChange } from '../items/change';
import { documentSummary, documentWithContent } from '../items/document';
import { claimName, entriesWithItems, nameTaken } from '../items/entry';
import { checkMoveTarget, depthLimitReached, liveFolderIn, placeIs, type StoredFolder, targetKeys } from '../items/folder';
import { childPlace, type Place, parentPlace } from '../items/folder-path';
import { documentKey, folderKey } from '../items/keys';
import { resourceOf } from '../items/resource-of';
import { replacedRevisionSteps } from '../items/revision';
import { ACCESS_STEP, explainAccess, roleCheck } from '../items/role';
import { newTask, nextPageOf, type TaskStep } from '../items/task';
import { authorizeTrash, readTrashItem, removeTrashRecord, stillTrashedBy } from '../items/trash';
import { addUsageStep, quotaExceeded, quotaReached, USAGE_STEP } from '../items/usage';
import { MAX_FOLDER_DEPTH } from '../limits';
import { nameKey } from '../names';
import type { Caller, Document, Folder } from '../resources';
import { heightBelow, LINK_STEP, placeUnder } from './move-folder';
import { SUBTREE_PAGE } from './trash';

export interface RestoreTo {
  folderId?: string;
  name?: string;
}

/**
 * POST /{id}/trash/{itemId}/restore: back where it was (or into `folderId`, as `name`), with
 * everything below it. One read (the item, the repository, the caller's role, and a target
 * folder named in the body), then one transaction: the mark cleared, the entry back in its
 * folder (409 if the name is taken there), the trash record gone, and for a folder the task that
 * unmarks what is below it. The original folder is not read: the transaction asserts it is
 * still there and live (else 409 `restore-target-gone`) and, for a folder, still at the place it
 * had; only if that fails is it read. Restored as it was, the item keeps its version; restored
 * under another name or into another folder it is also renamed or moved, and gets version + 1.
 */
export async function restoreFromTrash(caller: Caller, repositoryId: string, itemId: string, to: RestoreTo): Promise<Document | Folder> {
  // The folder to read with the item: the one the body names; the original one once its place was found changed.
  let readTarget = to.folderId;
  let trustPath = true;
  return optimistically(async () => {
    const { role, found, lookup } = await readTrashItem(caller, repositoryId, itemId, readTarget ? targetKeys(caller, readTarget) : []);
    authorizeTrash(role, found, 'write');
    const { item } = found;
    const mark = item.trash;
    const original = found.folderId;
    const folderId = to.folderId ?? original;
    const name = to.name ?? item.name;
    const key = nameKey(name);
    // The target folder as read: the one the body names (judged as a move's), or the original one once read.
    let target: StoredFolder | undefined;
    if (to.folderId !== undefined) target = checkMoveTarget(caller, lookup, folderId, repositoryId, 'folderId');
    else if (readTarget !== undefined) {
      target = lookup(folderKey(folderId)) as StoredFolder | undefined;
      if (!target || target.trash) throw restoreTargetGone();
    }
    const changed = folderId !== original || name !== item.name;
    const at = now();
    const changes = changed ? { name, nameKey: key, version: item.version + 1, updatedAt: at, updatedBy: caller.userId } : {};
    const steps: Record<string, TransactItem> = {
      record: removeTrashRecord(repositoryId, mark),
      [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
    };
    let restored: Document | Folder;
    if (found.kind === 'document') {
      // With its content, for the answer (large text: one read more).
      const document: Document = { ...(await documentWithContent(found.item)), ...resourceOf<Partial<Document>>(changes), folderId };
      restored = document;
      // A new version counts its size (../items/usage.ts), in the document's kept bytes too.
      const counted = changed ? ' ADD #keptBytes :size' : '';
      Object.assign(steps, {
        item: update(
          documentKey(itemId),
          `REMOVE #trash${changed ? ' SET #name = :name, #nameKey = :nameKey, #folderId = :folderId, #version = :version, #updatedAt = :at, #updatedBy = :by' : ''}${counted}`,
          {
            '#trash': 'trash',
            '#token': 'token',
            '#purging': 'purging',
            ...(changed ? { ...changedNames('folderId'), '#keptBytes': 'keptBytes' } : {}),
          },
          { ':token': mark.token, ...(changed ? { ...changedValues(document, key, folderId, at), ':size': document.size } : {}) },
          stillTrashedBy(mark.token).expression,
        ),
        ...(changed ? { [USAGE_STEP]: addUsageStep(repositoryId, document.size) } : {}),
        target: check(folderKey(folderId), liveFolderIn(repositoryId)),
        ...claimName('documents', folderId, key, documentSummary(document)),
        // A new version (same content): the one it replaces gets its revision item, as any update's does.
        ...(changed ? replacedRevisionSteps(found.item) : {}),
      });
    } else {
      const stored = found.item;
      let place: Place = stored;
      if (to.folderId !== undefined && target) {
        const placement = await placeUnder(stored, target, repositoryId, trustPath);
        place = placement;
        Object.assign(steps, placement.links);
      } else if (target) {
        // Its original folder, read: it may have moved (a deeper place must keep what is below within the limit).
        place = childPlace(target);
        if (place.depth > stored.depth && place.depth + (await heightBelow(stored, MAX_FOLDER_DEPTH - place.depth)) > MAX_FOLDER_DEPTH) {
          throw depthLimitReached();
        }
        steps.target = check(folderKey(folderId), liveFolderIn(repositoryId, placeIs(target)));
      } else {
        // Not read: it is where it was when the folder was deleted, or this is read again.
        steps.target = check(folderKey(folderId), liveFolderIn(repositoryId, placeIs(parentPlace(stored))));
      }
      const folder: Folder = { ...resourceOf<Folder>(stored), ...resourceOf<Partial<Folder>>(changes), parentId: folderId };
      restored = folder;
      const moved = place.depth !== stored.depth || place.path !== stored.path;
      Object.assign(steps, {
        item: put({ ...folderKey(itemId), ...folder, nameKey: key, depth: place.depth, path: place.path }, stillTrashedBy(mark.token)),
        ...claimName('folders', folderId, key, folder),
        below: newTask({ kind: 'restore-subtree', repositoryId, root: itemId, token: mark.token, folderId: itemId }),
        ...(moved ? { depth: newTask({ kind: 'refresh-depth', repositoryId, folderId: itemId }) } : {}),
      });
    }
    steps.change = recordChange(repositoryId, {
      type: 'restored',
      kind: found.kind,
      id: itemId,
      folderId,
      name: restored.name,
      version: restored.version,
      at,
      by: caller.userId,
    });
    try {
      await transactWrite(steps);
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      explainAccess(error, caller, 'write', 'Trash item');
      if (nameTaken(error)) {
        throw conflict(`The folder already has an item named "${name}": restore it with another \`name\`, or into another \`folderId\`.`);
      }
      if (quotaReached(error) && error.failed.size === 1) throw quotaExceeded((restored as Document).size); // only a document counts usage
      if (error.failed.has('target')) {
        if (found.kind === 'document' && to.folderId === undefined) throw restoreTargetGone();
        readTarget = folderId; // gone, in the trash, or moved: read it to tell which
      }
      if ([...error.failed].some((step) => step.startsWith(LINK_STEP))) trustPath = false;
      throw error; // restored, purged or changed meanwhile: read again
    }
    return restored;
  });
}

const restoreTargetGone = () =>
  new HttpError(
    'restore-target-gone',
    'The folder it was in is gone or in the trash: restore it with a `folderId` (and, if need be, a `name`) to put it elsewhere.',
  );

const changedNames = (placeAttribute: string) => ({
  '#name': 'name',
  '#nameKey': 'nameKey',
  '#folderId': placeAttribute,
  '#version': 'version',
  '#updatedAt': 'updatedAt',
  '#updatedBy': 'updatedBy',
});
const changedValues = (resource: { name: string; version: number; updatedBy: string }, key: string, folderId: string, at: string) => ({
  ':name': resource.name,
  ':nameKey': key,
  ':folderId': folderId,
  ':version': resource.version,
  ':at': at,
  ':by': resource.updatedBy,
});

/** The task step that clears a page of this deletion's marks below a restored folder, and starts the same for each sub folder. */
export const restoreSubtree: TaskStep<'restore-subtree'> = async (task) => {
  const { repositoryId, root, token, folderId } = task;
  const page = await entriesWithItems(folderId, task.cursor, SUBTREE_PAGE);
  const writes: Record<string, TransactItem> = {};
  page.forEach(({ key, item, isFolder }, i) => {
    if (item?.trash?.root !== root || item.trash.token !== token) return;
    writes[`unmark${i}`] = update(
      key,
      'REMOVE #trash',
      { '#trash': 'trash', '#root': 'root', '#token': 'token' },
      { ':root': root, ':token': token },
      '#trash.#root = :root AND #trash.#token = :token',
    );
    if (isFolder) writes[`task${i}`] = newTask({ kind: 'restore-subtree', repositoryId, root, token, folderId: item.id });
  });
  return {
    writes,
    next: nextPageOf(
      page.map(({ entry }) => entry),
      SUBTREE_PAGE,
    ),
  };
};
