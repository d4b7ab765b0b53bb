/**
 * The bytes of revisions no longer kept (functions/worker/housekeeping.ts prunes them): the task
 * that pruning starts, in the transaction that deletes the revisions and their content items,
 * with the objects those content items named. It deletes the ones no content item of the
 * document still names: a revision restore makes a new version whose content item repeats an
 * older `objectKey`, so one object may be named by several content items, of which only some
 * were pruned.
 *
 * Why "delete the items, then read what still names an object, then delete the objects" is safe:
 * the only write that makes a new reference to an existing object is a revision restore, and it
 * asserts (a ConditionCheck in its transaction) that the content item it copies the `objectKey`
 * from still exists. Once the pruning transaction has committed, a restore from a pruned content
 * item fails. A restore from one that is still there either committed before this task's read
 * (which then sees the new item), or commits after it: then its source existed before and after
 * the read, so the read saw the source, which names the same object. The read is strongly
 * consistent and goes through every content item of the document. So an object this task
 * deletes is named by no content item, and none can name it any more.
 *
 * As a task, this is done even if the worker stops right after the pruning transaction: the
 * task item is in the table, and the stream or the sweeper runs it. Deleting an object that is
 * gone already is no error, so a step done twice does no harm.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, type Item, tableName } from '../db/client';
import { deleteObjectKeys } from '../files/objects';
import { CONTENT_PREFIX, documentPartition } from '../items/keys';
import type { TaskStep } from '../items/task';

/** The objects the document's content items name now (strongly consistent, every page). */
async function objectKeysNamed(documentId: string): Promise<Set<string>> {
  const named = new Set<string>();
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
