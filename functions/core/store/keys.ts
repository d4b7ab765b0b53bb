/**
 * Key shapes of the single table — the only module that knows them. See docs/data-model.md.
 *
 *   REPO#<repoId>     REPO                       repository
 *   FOLDER#<folderId> FOLDER                     folder
 *   FOLDER#<folderId> F#<nameKey>                sub folder entry (a copy of the sub folder)
 *   FOLDER#<folderId> D#<nameKey>                document entry (the document without content)
 *   DOC#<docId>       DOC                        document, with content
 *   USER#<userId>     ACCESS                     the user's role per repository: attributes R#<repoId>
 *   USER#<userId>     REPO#<nameKey>\x01<repoId> membership: role + repository, listed by name
 */
export interface Key {
  PK: string;
  SK: string;
}

/** Sorts below every character a name may contain (control characters are not allowed). */
const NAME_END = '\u0001';

export const repositoryKey = (repositoryId: string): Key => ({ PK: `REPO#${repositoryId}`, SK: 'REPO' });
export const folderKey = (folderId: string): Key => ({ PK: `FOLDER#${folderId}`, SK: 'FOLDER' });
export const documentKey = (documentId: string): Key => ({ PK: `DOC#${documentId}`, SK: 'DOC' });
export const accessKey = (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'ACCESS' });
export const roleAttribute = (repositoryId: string) => `R#${repositoryId}`;

/**
 * DynamoDB refuses a sort key over 1,024 bytes, and a 255-character name can take 1,020
 * bytes of UTF-8: a membership key keeps the first 996 bytes of the name key (whole
 * characters), which is every name up to 249 four-byte characters. Two longer names that
 * agree on those bytes list by repository id instead of by their remaining characters.
 */
const MAX_SORT_KEY_BYTES = 1024;

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
export const MEMBERSHIP_PREFIX = 'REPO#';

/** The two kinds of entries in a folder's partition, each listed in name order. */
export type EntryKind = 'folders' | 'documents';
export const entryPrefix: Record<EntryKind, string> = { folders: 'F#', documents: 'D#' };
export const entryKey = (kind: EntryKind, folderId: string, nameKey: string): Key => ({
  PK: `FOLDER#${folderId}`,
  SK: `${entryPrefix[kind]}${nameKey}`,
});

export const userPartition = (userId: string) => `USER#${userId}`;
export const folderPartition = (folderId: string) => `FOLDER#${folderId}`;
