/**
 * Key shapes of the single table — the only module that knows them. See docs/data-model.md.
 *
 *   REPO#<repoId>        REPO                         repository
 *   REPO#<repoId>        M#<userId>                   member (listed by user id)
 *   REPO#<repoId>        TRASH#<deletedAt>#<itemId>   trash record (listed newest first)
 *   REPO#<repoId>        UPLOAD#<uploadId>            upload session (./upload.ts)
 *   REPO#<repoId>        USAGE                        the repository's storage usage (`bytes`), against its quota
 *   REPO#<repoId>        LINK#<linkId>                a share link's entry: the repository's links, newest first (./link.ts)
 *   ACL#<repoId>#<nn>    ACL                          roles of the members whose home bucket is nn or one of the ACL_LANES - 1 before it
 *   USER#<userId>        REPO#<nameKey>\x01<repoId>   membership (the user's repositories, by name)
 *   USER#<userId>        PROFILE                      how many repositories the user is in
 *   FOLDER#<folderId>    FOLDER                       folder
 *   FOLDER#<folderId>    F#<nameKey>                  sub folder entry (a copy of the sub folder)
 *   FOLDER#<folderId>    D#<nameKey>                  document entry (the document without content)
 *   DOC#<docId>          DOC                          document (storage, size, sha256, keptBytes, objectKey…; its text while it fits 4 KB)
 *   DOC#<docId>          REV#<version>                revision: a version's metadata (10 digits, so versions sort as numbers)
 *   DOC#<docId>          CONTENT#<version>            the content a version set ({content} or {objectKey}) when not in DOC (./document.ts)
 *   DOC#<docId>          LINK#<linkId>                a share link (./link.ts): the document's links, newest first; purged with the document
 *   FEED#<repoId>        P#<at>#<uuid>                change written by a request, not yet in the feed
 *   FEED#<repoId>        S#<seq>                      change in the feed (12 digits)
 *   FEED#<repoId>        SEQ                          the feed's last sequence number
 *   TASK#<taskId>        TASK                         background work (a subtree to trash, restore, purge…)
 *   IDEMPOTENCY#<hash>   IDEMPOTENCY                  an Idempotency-Key's record (./idempotency.ts)
 *   META                 LAYOUT                       the version of this layout (lib/local/layout-version.ts)
 *
 * Each item kind's module (./<kind>.ts) builds its keys here; the stream's filters and the
 * worker tell records apart with the prefixes and predicates below.
 */
import { createHash } from 'node:crypto';

export interface Key {
  PK: string;
  SK: string;
}

/** Sorts below every character a name may contain (control characters are not allowed). */
const NAME_END = '\u0001';
/** DynamoDB refuses a sort key over 1,024 bytes. */
const MAX_SORT_KEY_BYTES = 1024;

/** What each partition key starts with (the stream's filters match these too). */
export const PARTITION = {
  repository: 'REPO#',
  acl: 'ACL#',
  user: 'USER#',
  folder: 'FOLDER#',
  document: 'DOC#',
  feed: 'FEED#',
  task: 'TASK#',
  idempotency: 'IDEMPOTENCY#',
} as const;
/** The sort key of each kind's own item (the one that is not an entry, a member, a revision…). */
export const ITEM_SORT_KEY = {
  repository: 'REPO',
  acl: 'ACL',
  profile: 'PROFILE',
  folder: 'FOLDER',
  document: 'DOC',
  /** A document's current inline text, beside its `DOC` item: written by layout 4 only, read no more, removed with the document. */
  content: 'CONTENT',
  /** A repository's storage usage, beside its `REPO` item. */
  usage: 'USAGE',
  task: 'TASK',
  feedSequence: 'SEQ',
  idempotency: 'IDEMPOTENCY',
} as const;

export const repositoryPartition = (repositoryId: string) => `${PARTITION.repository}${repositoryId}`;
export const userPartition = (userId: string) => `${PARTITION.user}${userId}`;
export const folderPartition = (folderId: string) => `${PARTITION.folder}${folderId}`;
export const documentPartition = (documentId: string) => `${PARTITION.document}${documentId}`;
export const feedPartition = (repositoryId: string) => `${PARTITION.feed}${repositoryId}`;
/** The id a partition key names (`REPO#<id>` → `<id>`). */
export const idOfPartition = (partitionKey: string) => partitionKey.slice(partitionKey.indexOf('#') + 1);

export const repositoryKey = (repositoryId: string): Key => ({ PK: repositoryPartition(repositoryId), SK: ITEM_SORT_KEY.repository });
export const memberKey = (repositoryId: string, userId: string): Key => ({
  PK: repositoryPartition(repositoryId),
  SK: `${MEMBER_PREFIX}${userId}`,
});
export const trashKey = (repositoryId: string, deletedAt: string, itemId: string): Key => ({
  PK: repositoryPartition(repositoryId),
  SK: `${TRASH_PREFIX}${deletedAt}#${itemId}`,
});
/** A trash record's key, from the sort key its item's trash mark keeps. */
export const trashKeyOfSortKey = (repositoryId: string, sortKey: string): Key => ({ PK: repositoryPartition(repositoryId), SK: sortKey });
/** When the item of a trash record's sort key was deleted (ISO 8601: no `#` in it). */
export const deletedAtOfTrashKey = (sortKey: string) => sortKey.slice(TRASH_PREFIX.length, sortKey.lastIndexOf('#'));
/** The last sort key of the trash records deleted at or before `at` (`$` sorts after `#`). */
export const trashDeletedBy = (at: string) => `${TRASH_PREFIX}${at}$`;
export const folderKey = (folderId: string): Key => ({ PK: folderPartition(folderId), SK: ITEM_SORT_KEY.folder });
export const documentKey = (documentId: string): Key => ({ PK: documentPartition(documentId), SK: ITEM_SORT_KEY.document });
export const revisionKey = (documentId: string, version: number): Key => ({
  PK: documentPartition(documentId),
  SK: `${REVISION_PREFIX}${String(version).padStart(10, '0')}`,
});
/** A repository's storage usage (`bytes`), changed in the transaction of every version write. */
export const usageKey = (repositoryId: string): Key => ({ PK: repositoryPartition(repositoryId), SK: ITEM_SORT_KEY.usage });
/** The content written at `version` (revisions that kept it point here: `contentVersion`). */
export const contentKey = (documentId: string, version: number): Key => ({
  PK: documentPartition(documentId),
  SK: `${CONTENT_PREFIX}${String(version).padStart(10, '0')}`,
});
/** An upload session: in its repository's partition, so a deleted repository's reclaim finds it. */
export const uploadKey = (repositoryId: string, uploadId: string): Key => ({
  PK: repositoryPartition(repositoryId),
  SK: `${UPLOAD_PREFIX}${uploadId}`,
});
/** A share link, in its document's partition: purged with the document, and read with it in one BatchGetItem. */
export const linkKey = (documentId: string, linkId: string): Key => ({ PK: documentPartition(documentId), SK: `${LINK_PREFIX}${linkId}` });
/** A share link's entry in its repository: lists the repository's links, and finds a link by its id (which names the repository). */
export const linkEntryKey = (repositoryId: string, linkId: string): Key => ({
  PK: repositoryPartition(repositoryId),
  SK: `${LINK_PREFIX}${linkId}`,
});
/** A membership key, from the sort key the member item keeps (`listingKey`). */
export const membershipKeyOfSortKey = (userId: string, sortKey: string): Key => ({ PK: userPartition(userId), SK: sortKey });
export const profileKey = (userId: string): Key => ({ PK: userPartition(userId), SK: ITEM_SORT_KEY.profile });
export const taskKey = (taskId: string): Key => ({ PK: `${PARTITION.task}${taskId}`, SK: ITEM_SORT_KEY.task });
/** An Idempotency-Key's record (the hash Powertools makes of the key and the caller). */
export const idempotencyKey = (hash: string): Key => ({ PK: `${PARTITION.idempotency}${hash}`, SK: ITEM_SORT_KEY.idempotency });
/** Any item's key, from the item itself. */
export const keyOf = (item: Record<string, unknown>): Key => ({ PK: item.PK as string, SK: item.SK as string });

/** Short: a user id may take 1,020 bytes of UTF-8 (255 four-byte characters), a sort key 1,024. */
export const MEMBER_PREFIX = 'M#';
export const TRASH_PREFIX = 'TRASH#';
export const UPLOAD_PREFIX = 'UPLOAD#';
export const REVISION_PREFIX = 'REV#';
export const CONTENT_PREFIX = 'CONTENT#';
export const LINK_PREFIX = 'LINK#';
/** The highest version a revision key holds (10 digits). */
export const MAX_REVISION = 9_999_999_999;
export const MEMBERSHIP_PREFIX = 'REPO#';

// ---------------------------------------------------------------------------------------------
// Roles: a repository's members are spread over ACL_BUCKETS small items by a hash of their id,
// so checking a caller's role reads one item of a few members, whatever the repository's or the
// caller's size. Each member's role is kept in ACL_LANES buckets (their lanes: the home bucket
// their id hashes to and the ones after it), all changed in the transaction that changes the
// role: a read reads the home bucket, a write checks one lane at random, so a user's parallel
// writes rarely meet on one item (DynamoDB cancels transactions that overlap on one, checks
// included), and there are never more than ACL_BUCKETS items for a repository delete to remove
// in its one transaction (docs/data-model.md: Authorization).

export const ACL_BUCKETS = 64;
/**
 * How many buckets hold each member's role. Each lane is written by every role change and by
 * a new repository (2 write units each), so lanes cost what they spread: 4 keep one user's 8
 * parallel writes free of 503s in conflict mode (test/members/role-lanes.test.ts; document
 * writes meet on the repository's usage item anyway, ./usage.ts), and a bucket of a
 * 1,000-member repository (~63 roles, ~3 KB) within one 4 KB read unit.
 */
export const ACL_LANES = 4;

/** FNV-1a of the user id's UTF-8 bytes: stable across runtimes, spreads ids evenly. */
export function aclBucket(userId: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(userId, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash % ACL_BUCKETS;
}
export const aclKeyOfBucket = (repositoryId: string, bucket: number): Key => ({
  PK: `${PARTITION.acl}${repositoryId}#${bucket.toString(16).padStart(2, '0')}`,
  SK: ITEM_SORT_KEY.acl,
});
/** The bucket number of an ACL key (`ACL#<repo>#<nn>`). */
export const bucketOfAclKey = (key: { PK: string }) => Number.parseInt(key.PK.slice(key.PK.lastIndexOf('#') + 1), 16);
/** The member's home bucket: the one reads use. */
export const aclKey = (repositoryId: string, userId: string): Key => aclKeyOfBucket(repositoryId, aclBucket(userId));
/** The buckets that hold the member's role (home first). */
export const aclLanes = (userId: string): number[] => {
  const home = aclBucket(userId);
  return Array.from({ length: ACL_LANES }, (_, lane) => (home + lane) % ACL_BUCKETS);
};
/** The bucket of one of the member's lanes, at random: the one a write checks. */
export const randomAclLane = (userId: string): number => (aclBucket(userId) + Math.floor(Math.random() * ACL_LANES)) % ACL_BUCKETS;
/** The attribute of a bucket that holds one user's role. */
export const roleAttribute = (userId: string) => `U#${userId}`;

// ---------------------------------------------------------------------------------------------
// Memberships: the user's repositories, by name.

/**
 * A name may take 1,020 bytes of UTF-8 (255 four-byte characters): a membership key keeps the
 * first 996 bytes of the name key (whole characters). Two longer names that agree on those
 * bytes list by repository id instead of by their remaining characters.
 */
export const membershipKey = (userId: string, nameKey: string, repositoryId: string): Key => {
  const end = `${NAME_END}${repositoryId}`;
  const room = MAX_SORT_KEY_BYTES - Buffer.byteLength(MEMBERSHIP_PREFIX) - Buffer.byteLength(end);
  return { PK: userPartition(userId), SK: `${MEMBERSHIP_PREFIX}${utf8Prefix(nameKey, room)}${end}` };
};

/** The longest prefix of `text`, in whole characters, that fits in `maxBytes` of UTF-8. */
function utf8Prefix(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let prefix = '';
  let bytes = 0;
  for (const character of text) {
    bytes += Buffer.byteLength(character);
    if (bytes > maxBytes) break;
    prefix += character;
  }
  return prefix;
}

// ---------------------------------------------------------------------------------------------
// A folder's partition: its entries, each kind listed in name order.

export type EntryKind = 'folders' | 'documents';
export const entryPrefix: Record<EntryKind, string> = { folders: 'F#', documents: 'D#' };
/** Every entry of a folder (documents `D#`, then sub folders `F#`), and not the folder item (`FOLDER`). */
export const ENTRIES_RANGE = { from: 'D#', to: 'F$' } as const;
export const entryKey = (kind: EntryKind, folderId: string, nameKey: string): Key => ({
  PK: folderPartition(folderId),
  SK: `${entryPrefix[kind]}${fittingNameKey(nameKey, MAX_SORT_KEY_BYTES - entryPrefix[kind].length)}`,
});

/**
 * A name key within `maxBytes` of UTF-8. Case folding can triple a name's bytes (`ΰ` is three
 * code points folded), so 255 characters may fold to 1,530 bytes: past DynamoDB's 1,024-byte
 * sort key. Such a key keeps its first bytes (whole characters), then NAME_END and a SHA-256 of
 * the whole key: equal names still clash, different ones never do, and order holds up to the
 * cut.
 */
export function fittingNameKey(nameKey: string, maxBytes: number): string {
  if (Buffer.byteLength(nameKey) <= maxBytes) return nameKey;
  const digest = createHash('sha256').update(nameKey).digest('base64url');
  return `${utf8Prefix(nameKey, maxBytes - NAME_END.length - digest.length)}${NAME_END}${digest}`;
}

// ---------------------------------------------------------------------------------------------
// The change feed of a repository.

export const FEED_PENDING_PREFIX = 'P#';
export const FEED_SEQUENCED_PREFIX = 'S#';
export const pendingChangeKey = (repositoryId: string, changeId: string): Key => ({
  PK: feedPartition(repositoryId),
  SK: `${FEED_PENDING_PREFIX}${changeId}`,
});
export const sequencedChangeKey = (repositoryId: string, seq: number): Key => ({
  PK: feedPartition(repositoryId),
  SK: `${FEED_SEQUENCED_PREFIX}${String(seq).padStart(12, '0')}`,
});
/** Past every numbered change's sort key. */
export const FEED_SEQUENCED_END = `${FEED_SEQUENCED_PREFIX}~`;
export const feedSequenceKey = (repositoryId: string): Key => ({ PK: feedPartition(repositoryId), SK: ITEM_SORT_KEY.feedSequence });

// ---------------------------------------------------------------------------------------------
// Which kind of item a stream record's keys name (functions/worker/stream.ts).

export const isPendingChangeKey = ({ PK, SK }: Key) => PK.startsWith(PARTITION.feed) && SK.startsWith(FEED_PENDING_PREFIX);
export const isSequencedChangeKey = ({ PK, SK }: Key) => PK.startsWith(PARTITION.feed) && SK.startsWith(FEED_SEQUENCED_PREFIX);
export const isTaskKey = ({ PK }: Key) => PK.startsWith(PARTITION.task);
export const isTrashKey = ({ PK, SK }: Key) => PK.startsWith(PARTITION.repository) && SK.startsWith(TRASH_PREFIX);
export const isDocumentKey = ({ SK }: Key) => SK === ITEM_SORT_KEY.document;
export const isUploadKey = ({ PK, SK }: Key) => PK.startsWith(PARTITION.repository) && SK.startsWith(UPLOAD_PREFIX);
export const isLinkKey = ({ PK, SK }: Key) => PK.startsWith(PARTITION.document) && SK.startsWith(LINK_PREFIX);
