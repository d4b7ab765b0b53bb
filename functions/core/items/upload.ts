/**
 * Upload sessions (`REPO#<repoId>` / `UPLOAD#<uploadId>`): a file on its way into the bucket,
 * before it becomes a version of a document (docs/data-model.md: Files). Only the user who
 * began one sees it: anyone else gets 404, as if it did not exist. Its status moves only forward
 * (open → verifying → completed, or → failed / cancelled / expired), each move a conditional
 * write, so racing completions make one version and a late byte never revives an upload. Only
 * an open upload expires: the clock stops at `complete` (`isPastExpiry`).
 *
 * While the sweeper has something to do with it (a lost ObjectCreated, a verification, an
 * expiry, bytes to delete), the item carries the sweep index's attributes (./task.ts), with
 * `waitingSince` the time from which it should look.
 */
import { createHash } from 'node:crypto';
import { getItems, type Item, put, type TransactItem, update } from '../db/client';
import { itemIsAbsent } from '../db/conditions';
import { notFound } from '../errors';
import { repositoryOf } from '../ids';
import type { Caller, Document, Upload, UploadStatus } from '../resources';
import { uploadKey } from './keys';
import { sweepAttributes, sweepIndex } from './task';

/** DynamoDB's TTL removes a finished upload's record this long after it expired. */
const RECORD_KEPT_MS = 7 * 24 * 60 * 60 * 1_000;

export type StoredUpload = Omit<Upload, 'parts' | 'received'> & {
  /** A new document (`create`), or a new version of one (`update`, at `expectedVersion` if given). */
  kind: 'create' | 'update';
  expectedVersion?: number;
  /** Where its bytes go: `files/<repositoryId>/<documentId>/<uploadId>`. */
  objectKey: string;
  /** The bucket's multipart upload (files of more than one part). */
  s3UploadId?: string;
  /** The version its completion made: every later `complete` answers it. */
  document?: Document;
  /** Epoch seconds: DynamoDB's TTL (the table's `expiresAt`) removes the record then. */
  ttl: number;
};

const STORED_ONLY = ['kind', 'expectedVersion', 'objectKey', 's3UploadId', 'document', 'ttl'];

/** The upload as the API shows it: past its expiry an open upload is `expired`, before the sweeper marks it. */
export function uploadResource(stored: StoredUpload, at = Date.now()): Upload {
  const resource: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(stored)) {
    if (![sweepIndex.partitionKey, sweepIndex.sortKey, ...STORED_ONLY].includes(name)) resource[name] = value;
  }
  return { ...(resource as Upload), expiresAt: stored.expiresAt, status: shownStatus(stored, at) };
}

/**
 * Whether the upload's time is up. The clock stops at `complete`: an upload being verified
 * (`verifying`) never expires, however long its hashing takes (5 TiB takes more than the 24 hours
 * an upload lives: docs/api.md, Files); the verification ends it, completed or failed.
 */
export const isPastExpiry = (upload: Pick<StoredUpload, 'expiresAt' | 'status'>, at = Date.now()) =>
  upload.status !== 'verifying' && at >= Date.parse(upload.expiresAt);

function shownStatus(upload: StoredUpload, at: number): UploadStatus {
  const live = upload.status === 'open' || upload.status === 'verifying';
  return live && isPastExpiry(upload, at) ? 'expired' : upload.status;
}

/** The sweep shard of an upload (its id is base64url; the index wants a hex start). */
const sweepHex = (uploadId: string) => createHash('sha256').update(uploadId).digest('hex');

/** The item of a new upload; the sweeper looks at it from `lookFrom` (a one-part upload: soon; else at its expiry). */
export function newUploadStep(upload: StoredUpload, lookFrom: string): TransactItem {
  const { expiresAt, ttl, ...rest } = upload;
  return put(
    {
      ...uploadKey(upload.repositoryId, upload.id),
      ...rest,
      expiry: expiresAt,
      expiresAt: ttl,
      ...sweepAttributes(sweepHex(upload.id), lookFrom),
    },
    itemIsAbsent,
  );
}

/** The stored upload of `uploadId`, if the caller began it (else 404, whoever else asks). */
export async function readUpload(caller: Caller, uploadId: string, extraKeys: Parameters<typeof getItems>[0] = []) {
  const repositoryId = repositoryOf(uploadId);
  if (!repositoryId || repositoryId === uploadId) throw notFound('Upload');
  const key = uploadKey(repositoryId, uploadId);
  const lookup = await getItems([key, ...extraKeys]);
  const item = lookup(key);
  if (!item || item.createdBy !== caller.userId) throw notFound('Upload');
  return { upload: storedUpload(item), lookup };
}

/** An upload's item as read by background work (any creator); undefined when there is none. */
export async function readUploadItem(repositoryId: string, uploadId: string): Promise<StoredUpload | undefined> {
  const item = (await getItems([uploadKey(repositoryId, uploadId)]))(uploadKey(repositoryId, uploadId));
  return item ? storedUpload(item) : undefined;
}

function storedUpload(item: Item): StoredUpload {
  const { expiry, expiresAt: ttl, PK: _pk, SK: _sk, ...rest } = item;
  return { ...(rest as Omit<StoredUpload, 'expiresAt' | 'ttl'>), expiresAt: expiry as string, ttl: ttl as number };
}

/** What a status change may say besides the status. */
export interface StatusFields {
  problem?: Upload['problem'];
  document?: Document;
  /** The sweeper should look again from then (bytes to delete, a verification to finish); none: it has nothing left to do. */
  lookFrom?: string;
}

/**
 * The step that moves an upload from one of `from` to `to`: fails (ConditionFailed) when another
 * request moved it first, which is how racing completions and cancellations are told apart.
 */
export function statusStep(
  upload: Pick<StoredUpload, 'repositoryId' | 'id'>,
  from: readonly UploadStatus[],
  to: UploadStatus,
  fields: StatusFields = {},
) {
  const sets = ['#status = :to'];
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':to': to };
  from.forEach((status, i) => {
    values[`:from${i}`] = status;
  });
  if (fields.problem) {
    sets.push('#problem = :problem');
    names['#problem'] = 'problem';
    values[':problem'] = fields.problem;
  }
  if (fields.document) {
    sets.push('#document = :document');
    names['#document'] = 'document';
    values[':document'] = fields.document;
  }
  names['#since'] = sweepIndex.sortKey;
  names['#shard'] = sweepIndex.partitionKey;
  let expression: string;
  if (fields.lookFrom) {
    sets.push('#since = :since', '#shard = :shard');
    values[':since'] = fields.lookFrom;
    values[':shard'] = sweepAttributes(sweepHex(upload.id))[sweepIndex.partitionKey];
    expression = `SET ${sets.join(', ')}`;
  } else expression = `SET ${sets.join(', ')} REMOVE #since, #shard`;
  const fromList = from.map((_, i) => `:from${i}`).join(', ');
  return update(uploadKey(upload.repositoryId, upload.id), expression, names, values, `#status IN (${fromList})`);
}

/** Takes the upload out of the sweep index (its bytes are gone, or it is done). */
export const sweptStep = (upload: Pick<StoredUpload, 'repositoryId' | 'id'>) =>
  update(
    uploadKey(upload.repositoryId, upload.id),
    'REMOVE #since, #shard',
    { '#since': sweepIndex.sortKey, '#shard': sweepIndex.partitionKey },
    {},
  );

/** The sweeper looks at it again from `at` (nothing else changes). */
export const lookAgainStep = (upload: Pick<StoredUpload, 'repositoryId' | 'id'>, at: string) =>
  update(
    uploadKey(upload.repositoryId, upload.id),
    'SET #since = :since, #shard = :shard',
    { '#since': sweepIndex.sortKey, '#shard': sweepIndex.partitionKey },
    { ':since': at, ':shard': sweepAttributes(sweepHex(upload.id))[sweepIndex.partitionKey] },
  );

/** The TTL of an upload's record: a week after it expired (until then it answers 410). */
export const recordTtl = (expiresAt: string) => Math.floor((Date.parse(expiresAt) + RECORD_KEPT_MS) / 1_000);
