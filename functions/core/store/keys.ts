/**
 * Key shapes of the single table — the only module that knows them. See docs/data-model.md.
 *
 *   REPO#<repoId>        REPO                         repository
 *   REPO#<repoId>        M#<userId>                   member (listed by user id)
 *   REPO#<repoId>        TRASH#<deletedAt>#<itemId>   trash record (listed newest first)
 *   ACL#<repoId>#<nn>    ACL                          roles of the members whose home bucket is nn or one of the ACL_LANES - 1 before it
 *   USER#<userId>        REPO#<nameKey>\x01<repoId>   membership (the user's repositories, by name)
 *   USER#<userId>        PROFILE                      how many repositories the user is in
 *   FOLDER#<folderId>    FOLDER                       folder
 *   FOLDER#<folderId>    F#<nameKey>                  sub folder entry (a copy of the sub folder)
 *   FOLDER#<folderId>    D#<nameKey>                  document entry (the document without content)
 *   DOC#<docId>          DOC                          document, with content
 *   DOC#<docId>          REV#<version>                revision: a version's metadata (10 digits, so versions sort as numbers)
 *   DOC#<docId>          CONTENT#<version>            the content a version set, until the next version that changed it
 *   FEED#<repoId>        P#<at>#<uuid>                change written by a request, not yet in the feed
 *   FEED#<repoId>        S#<seq>                      change in the feed (12 digits)
 *   FEED#<repoId>        SEQ                          the feed's last sequence number
 *   TASK#<taskId>        TASK                         background work (a subtree to trash, restore, purge…)
 *   META                 LAYOUT                       the version of this layout (lib/local/layout-version.ts)
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

export const repositoryKey = (repositoryId: string): Key => ({ PK: `REPO#${repositoryId}`, SK: 'REPO' });
export const memberKey = (repositoryId: string, userId: string): Key => ({ PK: `REPO#${repositoryId}`, SK: `${MEMBER_PREFIX}${userId}` });
export const trashKey = (repositoryId: string, deletedAt: string, itemId: string): Key => ({
  PK: `REPO#${repositoryId}`,
  SK: `${TRASH_PREFIX}${deletedAt}#${itemId}`,
});
/** When the item of a trash record's sort key was deleted (ISO 8601: no `#` in it). */
export const deletedAtOfTrashKey = (sortKey: string) => sortKey.slice(TRASH_PREFIX.length, sortKey.lastIndexOf('#'));
export const folderKey = (folderId: string): Key => ({ PK: `FOLDER#${folderId}`, SK: 'FOLDER' });
export const documentKey = (documentId: string): Key => ({ PK: `DOC#${documentId}`, SK: 'DOC' });
export const revisionKey = (documentId: string, version: number): Key => ({
  PK: `DOC#${documentId}`,
  SK: `${REVISION_PREFIX}${String(version).padStart(10, '0')}`,
});
/** The content written at `version` (revisions that kept it point here: `contentVersion`). */
export const contentKey = (documentId: string, version: number): Key => ({
  PK: `DOC#${documentId}`,
  SK: `${CONTENT_PREFIX}${String(version).padStart(10, '0')}`,
});
export const profileKey = (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'PROFILE' });
export const taskKey = (taskId: string): Key => ({ PK: `TASK#${taskId}`, SK: 'TASK' });

/** Short: a user id may take 1,020 bytes of UTF-8 (255 four-byte characters), a sort key 1,024. */
export const MEMBER_PREFIX = 'M#';
export const TRASH_PREFIX = 'TRASH#';
export const REVISION_PREFIX = 'REV#';
export const CONTENT_PREFIX = 'CONTENT#';
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
/** How many buckets hold each member's role. */
export const ACL_LANES = 8;

/** FNV-1a of the user id's UTF-8 bytes: stable across runtimes, spreads ids evenly. */
export function aclBucket(userId: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(userId, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash % ACL_BUCKETS;
}
export const aclKeyOfBucket = (repositoryId: string, bucket: number): Key => ({
  PK: `ACL#${repositoryId}#${bucket.toString(16).padStart(2, '0')}`,
  SK: 'ACL',
});
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
  return { PK: `USER#${userId}`, SK: `${MEMBERSHIP_PREFIX}${utf8Prefix(nameKey, room)}${end}` };
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
  PK: `FOLDER#${folderId}`,
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
  PK: `FEED#${repositoryId}`,
  SK: `${FEED_PENDING_PREFIX}${changeId}`,
});
export const sequencedChangeKey = (repositoryId: string, seq: number): Key => ({
  PK: `FEED#${repositoryId}`,
  SK: `${FEED_SEQUENCED_PREFIX}${String(seq).padStart(12, '0')}`,
});
export const feedSequenceKey = (repositoryId: string): Key => ({ PK: `FEED#${repositoryId}`, SK: 'SEQ' });

export const userPartition = (userId: string) => `USER#${userId}`;
export const folderPartition = (folderId: string) => `FOLDER#${folderId}`;
export const repositoryPartition = (repositoryId: string) => `REPO#${repositoryId}`;
export const documentPartition = (documentId: string) => `DOC#${documentId}`;
export const feedPartition = (repositoryId: string) => `FEED#${repositoryId}`;
