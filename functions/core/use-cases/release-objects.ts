/**
 * The bytes of revisions no longer kept (functions/worker/housekeeping.ts prunes them): the task
 * that pruning starts, in the transaction that deletes the revisions and their content items,
 * with the objects those content items named. It deletes the ones no content item of the
 * document still names: a revision restore makes a new version whose content item repeats an
 * older `objectKey`, so one object may be named by several content items, of which only some
 * were pruned.
 *
 * What names an object: the document item (the current version's file, `objectKey`) and the
 * content items (`CONTENT#<v>`: a file no longer current, written by the version that replaced
 * it, from the document item it read; ../items/document.ts).
 *
 * Why "delete the items, then read what still names an object, then delete the objects" is safe:
 * the only write that names an object anew is a revision restore (into the document item), and
 * it asserts (a ConditionCheck in its transaction) that the content item it copies the
 * `objectKey` from still exists. Once the pruning transaction has committed, a restore from a
 * pruned content item fails. A restore from one that is still there either committed before
 * this task's reads (which then see it) or commits after them: then its source existed before
 * and after them, so they saw the source, which names the same object. A version that replaces
 * the document item's file moves its name into a content item, in one transaction: the document
 * item is read first, then the content items, so a move between the two reads is seen by the
 * second (the document item as read still named the object, or the move had committed before
 * the content items were read). The reads are strongly consistent and go through every content
 * item of the document. So an object this task deletes is named by no item, and none can name it
 * any more.
 *
 * As a task, this is done even if the worker stops right after the pruning transaction: the
 * task item is in the table, and the stream or the sweeper runs it. Deleting an object that is
 * gone already is no error, so a step done twice does no harm.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, getItems, type Item, tableName } from '../db/client';
import { deleteObjectKeys } from '../files/objects';
import { CONTENT_PREFIX, documentKey, documentPartition } from '../items/keys';
import type { TaskStep } from '../items/task';

/** The objects the document item and then its content items name now (strongly consistent, every page). */
async function objectKeysNamed(documentId: string): Promise<Set<string>> {
  const named = new Set<string>();
  const current = (await getItems([documentKey(documentId)]))(documentKey(documentId))?.objectKey;
  if (typeof current === 'string') named.add(current);
  let ExclusiveStartKey: Item | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :content)',
        ExpressionAttributeValues: { ':pk': documentPartition(documentId), ':content': CONTENT_PREFIX },
        ProjectionExpression: '#objectKey',
        ExpressionAttributeNames: { '#objectKey': 'objectKey' },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) if (typeof item.objectKey === 'string') named.add(item.objectKey);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return named;
}

/** One step: the task's objects that nothing names any more, deleted. */
export const releaseObjects: TaskStep<'release-objects'> = async (task) => {
  const named = await objectKeysNamed(task.documentId);
  await deleteObjectKeys(task.objectKeys.filter((key) => !named.has(key)));
  return { next: 'done' };
};
