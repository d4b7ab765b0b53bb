/**
 * The table's invariants, checked on a Scan of a test's whole table (never through the
 * service): what every write and every background job must leave behind once the worker has
 * settled (`await svc.worker.settled()` first). Tests call `expectInvariants()` after each
 * background job; `findViolations()` is the pure check, for a test that shows it catches each.
 *
 * - every folder and document is in a repository that exists, and in a folder that exists;
 * - every listing entry (a folder's `F#`/`D#`) has its item, with the same id, parent, name and
 *   version, and every item not deleted on its own has its entry; every membership has its
 *   member and the reverse;
 * - nothing is half in the trash: an item below a folder in the trash carries that deletion's
 *   mark; a mark names a deletion whose item is in the trash (with its record); nothing is left
 *   being purged; every trash record has its item;
 * - the tree has no cycle, and each folder's depth and path agree with its parent's;
 * - no task is left, and no change waits to be numbered into its feed;
 * - nothing of a deleted repository is left (`deletedRepositories`), and no item names a
 *   repository that does not exist.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { db, tableName } from '#core/db/client';
import { entryKey, MEMBERSHIP_PREFIX, membershipKey, TRASH_PREFIX } from '#core/items/keys';
import { MAX_FOLDER_DEPTH } from '#core/limits';

type Item = Record<string, any>;

export interface InvariantOptions {
  /** Repositories deleted during the test: nothing of them may be left. */
  deletedRepositories?: readonly string[];
}

/** Where to scan: by default the table this process's service uses (TABLE_NAME, DYNAMODB_ENDPOINT). */
export interface ScanTarget {
  endpoint?: string;
  tableName?: string;
}

/** Every item of the table, read with strongly consistent Scans. */
export async function scanTable(target: ScanTarget = {}): Promise<Item[]> {
  const own = target.endpoint !== undefined;
  const client = own
    ? DynamoDBDocumentClient.from(
        new DynamoDBClient({
          endpoint: target.endpoint,
          region: 'us-east-1',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      )
    : db();
  const TableName = target.tableName ?? tableName();
  const items: Item[] = [];
  try {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName, ConsistentRead: true, ExclusiveStartKey: start }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
  } finally {
    if (own) client.destroy();
  }
  return items;
}

/** Fails the test with every violation found. */
export async function expectInvariants(options: InvariantOptions & ScanTarget = {}): Promise<void> {
  expect(findViolations(await scanTable(options), options)).toEqual([]);
}

const isFolderEntry = (item: Item) => item.PK.startsWith('FOLDER#') && (item.SK.startsWith('F#') || item.SK.startsWith('D#'));

/** What is wrong with these items (empty: nothing). Each line names the item. */
export function findViolations(items: readonly Item[], options: InvariantOptions = {}): string[] {
  const problems: string[] = [];
  const byKey = new Map(items.map((item) => [`${item.PK}\u0000${item.SK}`, item]));
  const get = (PK: string, SK: string) => byKey.get(`${PK}\u0000${SK}`);
  const repository = (id: string) => get(`REPO#${id}`, 'REPO');
  const folder = (id: string) => get(`FOLDER#${id}`, 'FOLDER');
  const folders = items.filter((item) => item.PK.startsWith('FOLDER#') && item.SK === 'FOLDER');
  const documents = items.filter((item) => item.PK.startsWith('DOC#') && item.SK === 'DOC');
  const deleted = new Set(options.deletedRepositories ?? []);

  // Nothing of a deleted repository, and no item of a repository that does not exist.
  for (const id of deleted) if (repository(id)) problems.push(`REPO#${id} REPO: a deleted repository is still there`);
  for (const item of items) {
    const owner = repositoryNamed(item);
    if (owner !== undefined && deleted.has(owner)) problems.push(`${describe(item)}: left of deleted repository ${owner}`);
    else if (owner !== undefined && !repository(owner)) problems.push(`${describe(item)}: its repository ${owner} does not exist`);
  }

  // Revisions and contents of a document that does not exist.
  for (const item of items) {
    if (item.PK.startsWith('DOC#') && item.SK !== 'DOC' && !get(item.PK, 'DOC'))
      problems.push(`${describe(item)}: its document does not exist`);
  }

  // Share links ↔ their entries in the repository (functions/core/items/link.ts): made, revoked and purged together.
  for (const item of items) {
    if (!item.SK.startsWith('LINK#')) continue;
    if (item.PK.startsWith('DOC#') && !get(`REPO#${item.repositoryId}`, item.SK))
      problems.push(`${describe(item)}: its entry in the repository does not exist`);
    if (item.PK.startsWith('REPO#') && !get(`DOC#${item.documentId}`, item.SK)) problems.push(`${describe(item)}: its link does not exist`);
  }

  // Listing entries ↔ items.
  for (const entry of items.filter(isFolderEntry)) {
    const parentId = entry.PK.slice('FOLDER#'.length);
    const isFolder = entry.SK.startsWith('F#');
    const item = isFolder ? folder(entry.id) : get(`DOC#${entry.id}`, 'DOC');
    if (!folder(parentId)) problems.push(`${describe(entry)}: an entry of a folder that does not exist`);
    if (!item) {
      problems.push(`${describe(entry)}: an entry without its ${isFolder ? 'folder' : 'document'} ${entry.id}`);
      continue;
    }
    const place = isFolder ? item.parentId : item.folderId;
    if (place !== parentId) problems.push(`${describe(entry)}: its item is in ${place}`);
    if (entryKey(isFolder ? 'folders' : 'documents', parentId, item.nameKey).SK !== entry.SK) {
      problems.push(`${describe(entry)}: its item is named "${item.name}"`);
    }
    if (item.trash?.root === item.id) problems.push(`${describe(entry)}: an entry of ${item.id}, which was deleted on its own`);
    for (const field of ['name', 'version', 'updatedAt']) {
      if (entry[field] !== item[field]) problems.push(`${describe(entry)}: ${field} ${entry[field]} where its item has ${item[field]}`);
    }
  }
  for (const item of [...folders, ...documents]) {
    const isFolder = item.SK === 'FOLDER';
    const parentId = isFolder ? item.parentId : item.folderId;
    if (parentId === null) continue; // a root folder
    const deletedOnItsOwn = item.trash?.root === item.id;
    if (!folder(parentId)) {
      // Only an item in the trash on its own may outlive the folder it was in (restore says 409 then).
      if (!deletedOnItsOwn) problems.push(`${describe(item)}: its folder ${parentId} does not exist`);
      continue;
    }
    const entry = get(`FOLDER#${parentId}`, entryKey(isFolder ? 'folders' : 'documents', parentId, item.nameKey).SK);
    if (!deletedOnItsOwn && entry?.id !== item.id) problems.push(`${describe(item)}: no entry in its folder ${parentId}`);
  }

  // The trash: marks, records, deletions.
  const deletions = new Map<string, Item>(); // token → the item deleted
  for (const item of [...folders, ...documents]) {
    const mark = item.trash;
    if (!mark) continue;
    if (mark.purging) problems.push(`${describe(item)}: still being purged`);
    if (mark.root === item.id) {
      deletions.set(mark.token, item);
      const record = get(`REPO#${item.repositoryId}`, mark.key ?? '');
      if (!record || record.token !== mark.token || record.id !== item.id)
        problems.push(`${describe(item)}: in the trash without its record`);
    }
  }
  for (const record of items.filter((item) => item.PK.startsWith('REPO#') && item.SK.startsWith(TRASH_PREFIX))) {
    const item = record.kind === 'folder' ? folder(record.id) : get(`DOC#${record.id}`, 'DOC');
    if (item?.trash?.root !== record.id || item?.trash.token !== record.token)
      problems.push(`${describe(record)}: its item is not in the trash`);
  }
  /** The deletion an item is in through its place: its parent's own, or the one its parent is in. */
  const expectedMark = (item: Item): Item | undefined => {
    const parentId = item.SK === 'FOLDER' ? item.parentId : item.folderId;
    const parent = parentId === null ? undefined : folder(parentId);
    if (!parent?.trash) return undefined;
    return { root: parent.trash.root, token: parent.trash.token };
  };
  for (const item of [...folders, ...documents]) {
    const mark = item.trash;
    if (mark?.root === item.id) continue; // deleted on its own: its own deletion, wherever it was
    const expected = expectedMark(item);
    if (!expected && mark) problems.push(`${describe(item)}: marked as in the trash by ${mark.root}, but its folder is not in the trash`);
    if (expected && (mark?.root !== expected.root || mark.token !== expected.token)) {
      problems.push(`${describe(item)}: below ${expected.root} in the trash, but marked ${mark ? `by ${mark.root}` : 'as not in it'}`);
    }
    if (mark && !deletions.has(mark.token))
      problems.push(`${describe(item)}: marked by a deletion of ${mark.root} that is not in the trash`);
  }

  // The tree: no cycle, places that agree with the parents'.
  for (const item of folders) {
    const seen = new Set<string>();
    for (let at: Item | undefined = item; at && at.parentId !== null; at = folder(at.parentId)) {
      if (seen.has(at.id) || seen.size > MAX_FOLDER_DEPTH + 1) {
        problems.push(`${describe(item)}: its chain of parents has a cycle (through ${at.id})`);
        break;
      }
      seen.add(at.id);
    }
    if (item.parentId === null) {
      if (item.depth !== 0 || item.path !== '')
        problems.push(`${describe(item)}: a root folder at depth ${item.depth}, path "${item.path}"`);
      continue;
    }
    const parent = folder(item.parentId);
    if (!parent) continue;
    const path = parent.path === '' ? parent.id : `${parent.path}/${parent.id}`;
    if (item.depth !== parent.depth + 1 || item.path !== path) {
      problems.push(
        `${describe(item)}: depth ${item.depth}, path "${item.path}" under a parent at depth ${parent.depth}, path "${parent.path}"`,
      );
    }
    if (item.depth > MAX_FOLDER_DEPTH) problems.push(`${describe(item)}: deeper than ${MAX_FOLDER_DEPTH}`);
  }

  // Members ↔ memberships.
  for (const member of items.filter((item) => item.PK.startsWith('REPO#') && item.SK.startsWith('M#'))) {
    const listing = get(`USER#${member.userId}`, member.listingKey);
    if (listing?.repositoryId !== member.PK.slice('REPO#'.length) || listing?.role !== member.role) {
      problems.push(`${describe(member)}: no membership ${member.listingKey} with its role`);
    }
  }
  const memberships = items.filter((item) => item.PK.startsWith('USER#') && item.SK.startsWith(MEMBERSHIP_PREFIX));
  for (const listing of memberships) {
    const userId = listing.PK.slice('USER#'.length);
    const member = get(`REPO#${listing.repositoryId}`, `M#${userId}`);
    if (member?.listingKey !== listing.SK) problems.push(`${describe(listing)}: a membership without its member`);
    else {
      const named = repository(listing.repositoryId);
      // Renames move other members' memberships in the background: done once settled.
      if (named && membershipKey(userId, named.nameKey, listing.repositoryId).SK !== listing.SK) {
        problems.push(`${describe(listing)}: listed under an old name of ${listing.repositoryId}`);
      }
    }
  }
  for (const profile of items.filter((item) => item.PK.startsWith('USER#') && item.SK === 'PROFILE')) {
    const count = memberships.filter((item) => item.PK === profile.PK).length;
    if ((profile.repositoryCount ?? 0) !== count)
      problems.push(`${describe(profile)}: counts ${profile.repositoryCount} repositories, is in ${count}`);
  }

  // Background work: all done.
  for (const item of items) {
    if (item.PK.startsWith('TASK#')) problems.push(`${describe(item)}: a ${item.kind} task left (${JSON.stringify(item)})`);
    if (item.PK.startsWith('FEED#') && item.SK.startsWith('P#')) problems.push(`${describe(item)}: a change never numbered into its feed`);
  }
  return problems;
}

/** The repository an item belongs to, where it names one. */
function repositoryNamed(item: Item): string | undefined {
  const { PK, SK } = item;
  if (PK.startsWith('REPO#') && SK !== 'REPO') return PK.slice('REPO#'.length);
  if (PK.startsWith('ACL#')) return PK.slice('ACL#'.length, PK.lastIndexOf('#'));
  if (PK.startsWith('FEED#')) return PK.slice('FEED#'.length);
  if ((PK.startsWith('FOLDER#') || PK.startsWith('DOC#')) && typeof item.repositoryId === 'string') return item.repositoryId;
  if (PK.startsWith('USER#') && SK.startsWith(MEMBERSHIP_PREFIX)) return item.repositoryId;
  if (PK.startsWith('TASK#')) return item.repositoryId;
  if (PK.startsWith('REPO#')) return undefined; // the repository itself
  return undefined;
}

const describe = (item: Item) => `${item.PK} ${item.SK}`;
