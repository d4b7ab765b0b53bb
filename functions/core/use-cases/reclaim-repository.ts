/**
 * A deleted repository reclaimed in the background (DELETE /{id}: ../items/repository.ts): its
 * folders (purged from the root, as ./purge.ts purges a subtree), its rows in the search index, its members and their
 * memberships, its trash, its share links, its upload sessions, its bytes in the bucket, its usage, its feed, a
 * page at a time.
 */

import { repositoryObjectsPrefix } from '../bucket';
import { deleteItems, getItems, type Item, remove, type TransactItem } from '../db/client';
import { itemExists } from '../db/conditions';
import { prefixRange, queryPage, readRange } from '../db/queries';
import { deleteEverythingUnder } from '../files/objects';
import {
  feedPartition,
  keyOf,
  LINK_PREFIX,
  linkKey,
  MEMBER_PREFIX,
  memberKey,
  repositoryPartition,
  TRASH_PREFIX,
  UPLOAD_PREFIX,
  usageKey,
} from '../items/keys';
import { leaveRepositoryStep, removeMembership } from '../items/membership';
import { newTask, type TaskStep } from '../items/task';
import { closeForPurge, markAsPurging, type StoredTrashItem, trashedItemKey } from '../items/trash';
import { searchIndexConfigured } from '../search/database';
import { DROP_BATCH, dropRepository } from '../search/search-index';

/** Items a step reads. */
const PAGE = 32;

/**
 * A deleted repository: its folders (from the root), its members and their memberships, its
 * trash, its upload sessions, every object and multipart upload under its prefix in the bucket,
 * its usage item, its feed. The repository item and its role buckets went with the delete
 * itself, so nothing can start an upload or write a version in it any more: what the bucket
 * holds under its prefix once the `bytes` phase is done stays gone. Its documents' purges may
 * still be running then; they delete what is already gone, and give nothing back to the usage
 * item once it is gone (../items/usage.ts).
 */
export const reclaimRepository: TaskStep<'reclaim-repository'> = async (task) => {
  const { repositoryId } = task;
  switch (task.phase ?? 'start') {
    case 'start':
      return {
        writes: {
          close: closeForPurge(repositoryId, repositoryId, itemExists),
          root: newTask({ kind: 'purge-subtree', repositoryId, folderId: repositoryId }),
        },
        next: { phase: 'search' },
      };
    case 'search': {
      // No change is recorded for what the purge removes (the feed goes too): the index drops
      // the repository's rows itself, and refuses any of its items from then on.
      if (!searchIndexConfigured()) return { next: { phase: 'members' } };
      const dropped = await dropRepository(repositoryId);
      return { next: { phase: dropped < DROP_BATCH ? 'members' : 'search' } };
    }
    case 'members': {
      const members = await readRange(repositoryPartition(repositoryId), { ...prefixRange(MEMBER_PREFIX), limit: PAGE });
      if (members.length === 0) return { next: { phase: 'trash' } };
      const writes: Record<string, TransactItem> = {};
      members.forEach((member, i) => {
        const userId = member.userId as string;
        writes[`listing${i}`] = removeMembership(userId, member.listingKey as string);
        writes[`profile${i}`] = leaveRepositoryStep(userId, 'attribute_exists(PK)');
        writes[`member${i}`] = remove(memberKey(repositoryId, userId));
      });
      return { writes, next: { phase: 'members' } };
    }
    case 'trash': {
      // Each item in the trash is purged like any other (marked as being purged first, which
      // stops its own trash task), unless it already is; no change is recorded: the feed goes too.
      const records = (await readRange(repositoryPartition(repositoryId), { ...prefixRange(TRASH_PREFIX), limit: PAGE })) as (Item &
        StoredTrashItem)[];
      if (records.length === 0) return { next: { phase: 'links' } };
      const lookup = await getItems(records.map(trashedItemKey));
      const writes: Record<string, TransactItem> = {};
      records.forEach((record, i) => {
        writes[`record${i}`] = remove(keyOf(record));
        const mark = (lookup(trashedItemKey(record)) as { trash?: { token?: string; purging?: boolean } } | undefined)?.trash;
        if (!mark || mark.token !== record.token || mark.purging) return;
        writes[`purging${i}`] = markAsPurging(trashedItemKey(record), record.token);
        const id = record.id;
        writes[`task${i}`] = newTask(
          record.kind === 'folder'
            ? { kind: 'purge-subtree', repositoryId, folderId: id }
            : { kind: 'purge-document', repositoryId, documentId: id },
        );
      });
      return { writes, next: { phase: 'trash' } };
    }
    case 'links': {
      // Share links' entries, and their links: a document's purge removes both, so these are
      // only what a purge has not reached yet (deleting an item twice is harmless).
      const entries = await readRange(repositoryPartition(repositoryId), { ...prefixRange(LINK_PREFIX), limit: 50 });
      await deleteItems(entries.flatMap((entry) => [keyOf(entry), linkKey(entry.documentId as string, entry.id as string)]));
      return { next: { phase: entries.length === 0 ? 'uploads' : 'links' } };
    }
    case 'uploads': {
      // Upload sessions: their multipart uploads are aborted with the rest of the bytes, next.
      const uploads = await readRange(repositoryPartition(repositoryId), { ...prefixRange(UPLOAD_PREFIX), limit: 100 });
      await deleteItems(uploads.map(keyOf));
      return { next: { phase: uploads.length === 0 ? 'bytes' : 'uploads' } };
    }
    case 'bytes':
      await deleteEverythingUnder(repositoryObjectsPrefix(repositoryId));
      return { next: { phase: 'usage' } };
    case 'usage':
      return { writes: { usage: remove(usageKey(repositoryId)) }, next: { phase: 'feed' } };
    default: {
      const { items, lastKey } = await queryPage({
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': feedPartition(repositoryId) },
        Limit: 100,
      });
      await deleteItems(items.map(keyOf));
      return { next: lastKey === undefined ? 'done' : { phase: 'feed' } };
    }
  }
};
