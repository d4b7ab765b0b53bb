/**
 * Share links (docs/api.md: Share links): a document read by anyone who holds its token.
 *
 * Two items per link (docs/data-model.md: Share links):
 * - the link, `DOC#<docId>` / `LINK#<linkId>`: everything about it, in its document's partition,
 *   so the document's links list with one Query and a purge of the document removes them;
 * - its entry, `REPO#<repoId>` / `LINK#<linkId>`: lists the repository's links, and finds a link
 *   from its id alone (a link id starts with its repository's id, as folder ids do: ../ids.ts).
 * Link ids sort by creation time after that prefix, so both lists are newest first.
 *
 * The token is `<linkId>.<documentId>.<secret>` (192 random bits): it names the keys of the link
 * and its document, so opening a link is one BatchGetItem (link, document, repository). Only the
 * SHA-256 of the token is stored: nothing in the table rebuilds a link. The secret is random, so
 * a fast hash is enough for it; a password is another matter (../passwords.ts).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { authorize } from '../auth';
import { ConditionFailed, getItems, type Item, put, remove, transactWrite, update, updateItem } from '../db/client';
import { itemExists, itemIsAbsent } from '../db/conditions';
import { pageRequest, readPage } from '../db/queries';
import { forbidden, HttpError, notFound, throttled } from '../errors';
import { now, repositoryOf } from '../ids';
import { logger } from '../logger';
import { hashPassword, type PasswordHash, passwordMatches } from '../passwords';
import type { PageQuery } from '../requests';
import type { Caller, Document, Link, Page } from '../resources';
import { recordChange } from './change';
import { currentContentKeyOf, documentIsLive, liveDocumentIn, readDocument, sharedDocumentKeys, sharedDocumentOf } from './document';
import { aclKey, documentPartition, LINK_PREFIX, linkEntryKey, linkKey, repositoryKey, repositoryPartition } from './keys';
import { ACCESS_STEP, authorized, explainAccess, readWithRole, roleCheck as roleCheckFor, roleInBucket } from './role';

/** The link item. `expiry`: ISO 8601 or absent (not `expiresAt`, the table's TTL attribute). */
export interface StoredLink {
  id: string;
  documentId: string;
  repositoryId: string;
  tokenHash: string;
  expiry?: string;
  password?: PasswordHash;
  createdAt: string;
  createdBy: string;
  lastUsedAt?: string;
  /** The wrong-password window: when it ends (epoch ms) and the checks counted in it. */
  lock?: { until: number; tries: number };
}

/** 10 wrong passwords in a fixed 15-minute window lock a link until the window ends. */
export const LOCK_TRIES = 10;
export const LOCK_WINDOW_MS = 15 * 60_000;
/** `lastUsedAt` is written at most this often. */
export const LAST_USED_EVERY_MS = 60_000;
const SECRET_BYTES = 24;
const SECRET_LENGTH = 32;

/** A new link id: its repository's id, then the time (12 hex digits of milliseconds) and 40 random bits. 44 characters. */
export const newLinkId = (repositoryId: string) =>
  `${repositoryId}${Date.now().toString(16).padStart(12, '0')}${randomBytes(8).toString('base64url').slice(0, 10)}`;

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');
const ID_PART = /^[A-Za-z0-9_-]{1,64}$/;

/** The link and document a token names, or undefined when it is not a token's shape. */
function parseToken(token: string): { linkId: string; documentId: string; repositoryId: string } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [linkId, documentId, secret] = parts as [string, string, string];
  const repositoryId = repositoryOf(linkId);
  if (!ID_PART.test(linkId) || !ID_PART.test(documentId) || !ID_PART.test(secret) || secret.length !== SECRET_LENGTH || !repositoryId)
    return undefined;
  return { linkId, documentId, repositoryId };
}

/** The resource of a stored link (never its token, hash, password or lock). */
export const linkOf = (stored: StoredLink): Link => ({
  id: stored.id,
  documentId: stored.documentId,
  repositoryId: stored.repositoryId,
  expiresAt: stored.expiry ?? null,
  hasPassword: stored.password !== undefined,
  createdAt: stored.createdAt,
  createdBy: stored.createdBy,
  lastUsedAt: stored.lastUsedAt ?? null,
});

/** Keys of what a link leaves besides itself: its entry in the repository (a document's purge removes both). */
export const linkCompanionKeys = (item: Item) =>
  (item.SK as string).startsWith(LINK_PREFIX) && typeof item.repositoryId === 'string' && typeof item.id === 'string'
    ? [linkEntryKey(item.repositoryId, item.id)]
    : [];

/**
 * POST /document/{id}/links (owner, editor): one read (the document and the caller's role),
 * then one transaction: the link and its entry, the document still live, the role still
 * allowing it, the `link-created` change. The token is in this answer only.
 */
export async function createLink(
  caller: Caller,
  documentId: string,
  input: { expiresAt?: string | undefined; password?: string | undefined },
  baseUrl: string,
): Promise<Link> {
  const read = await readDocument(caller, documentId);
  const { item: document } = authorized(read, 'write', 'Document');
  const { repositoryId } = document;
  const at = now();
  const id = newLinkId(repositoryId);
  const token = `${id}.${documentId}.${randomBytes(SECRET_BYTES).toString('base64url')}`;
  const stored: StoredLink = {
    id,
    documentId,
    repositoryId,
    tokenHash: hashToken(token),
    ...(input.expiresAt === undefined ? {} : { expiry: new Date(input.expiresAt).toISOString() }),
    ...(input.password === undefined ? {} : { password: await hashPassword(input.password) }),
    createdAt: at,
    createdBy: caller.userId,
  };
  try {
    await transactWrite({
      link: put({ ...linkKey(documentId, id), ...stored }, itemIsAbsent),
      entry: put({ ...linkEntryKey(repositoryId, id), id, documentId, repositoryId, createdBy: caller.userId }, itemIsAbsent),
      document: documentIsLive(documentId),
      [ACCESS_STEP]: roleCheckFor(caller, repositoryId, 'write'),
      change: recordChange(repositoryId, { type: 'link-created', kind: 'link', id, documentId, at, by: caller.userId }),
    });
  } catch (error) {
    if (!(error instanceof ConditionFailed)) throw error;
    explainAccess(error, caller, 'write', 'Document');
    throw notFound('Document'); // trashed or purged since the read
  }
  return { ...linkOf(stored), url: `${baseUrl}/s/${token}`, token };
}

/** A link's entry (found from its id) and the caller's role in its repository: one BatchGetItem. */
async function readEntry(caller: Caller, linkId: string) {
  const repositoryId = repositoryOf(linkId);
  if (!repositoryId) throw notFound('Link');
  const read = await readWithRole(caller, linkEntryKey(repositoryId, linkId), linkId);
  const { item, role } = authorized(read, 'read', 'Link');
  return { entry: item as Item & { documentId: string; createdBy: string }, role, repositoryId };
}

/** GET /links/{linkId} (any member): the entry with the role, then the link. */
export async function getLink(caller: Caller, linkId: string): Promise<Link> {
  const { entry } = await readEntry(caller, linkId);
  const key = linkKey(entry.documentId, linkId);
  const stored = (await getItems([key]))(key) as StoredLink | undefined;
  if (!stored) throw notFound('Link');
  return linkOf(stored);
}

/**
 * DELETE /links/{linkId} (owner; an editor for the links they made): gone at once, with its
 * entry, in one transaction that re-checks the role and records `link-revoked`.
 */
export async function revokeLink(caller: Caller, linkId: string): Promise<void> {
  const { entry, role, repositoryId } = await readEntry(caller, linkId);
  const own = entry.createdBy === caller.userId;
  if (role !== 'owner' && !(role === 'editor' && own)) {
    throw forbidden(
      role === 'editor'
        ? 'An editor may revoke only the links they made; an owner may revoke any.'
        : `Your role "${role}" does not allow changes.`,
    );
  }
  const action = role === 'owner' && !own ? 'manage' : 'write';
  try {
    await transactWrite({
      link: remove(linkKey(entry.documentId, linkId), itemExists),
      entry: remove(linkEntryKey(repositoryId, linkId), itemExists),
      [ACCESS_STEP]: roleCheckFor(caller, repositoryId, action),
      change: recordChange(repositoryId, {
        type: 'link-revoked',
        kind: 'link',
        id: linkId,
        documentId: entry.documentId,
        at: now(),
        by: caller.userId,
      }),
    });
  } catch (error) {
    if (!(error instanceof ConditionFailed)) throw error;
    explainAccess(error, caller, action, 'Link');
    throw notFound('Link'); // revoked meanwhile
  }
}

/** GET /document/{id}/links (any member): the document with the role, and the page, in parallel: one round trip. */
export async function listDocumentLinks(caller: Caller, documentId: string, query: PageQuery): Promise<Page<Link>> {
  const request = pageRequest(`links:${documentId}`, documentPartition(documentId), LINK_PREFIX, query, { descending: true });
  const [read, page] = await Promise.all([readDocument(caller, documentId), readPage(request)]);
  authorized(read, 'read', 'Document');
  return { items: page.items.map((item) => linkOf(item as Item & StoredLink)), nextToken: page.nextToken };
}

/** GET /{id}/links (owner): the role and a page of entries in parallel, then their links (BatchGetItem). */
export async function listRepositoryLinks(caller: Caller, repositoryId: string, query: PageQuery): Promise<Page<Link>> {
  const request = pageRequest(`links:${repositoryId}`, repositoryPartition(repositoryId), LINK_PREFIX, query, { descending: true });
  const bucket = aclKey(repositoryId, caller.userId);
  const [lookup, page] = await Promise.all([getItems([bucket]), readPage(request)]);
  authorize(roleInBucket(lookup(bucket), caller.userId), 'manage', 'Repository');
  const keys = page.items.map((entry) => linkKey(entry.documentId as string, entry.id as string));
  const links = keys.length === 0 ? () => undefined : await getItems(keys);
  return {
    // A link revoked or purged between the two reads is left out.
    items: keys.flatMap((key) => {
      const stored = links(key) as StoredLink | undefined;
      return stored ? [linkOf(stored)] : [];
    }),
    nextToken: page.nextToken,
  };
}

// ---------------------------------------------------------------------------------------------
// Opening a link (the public routes): 404, then 429, then 401.

const linkNotFound = () => notFound('Link');
const locked = (until: number, at: number) =>
  throttled(
    `This link is locked after ${LOCK_TRIES} wrong passwords; it opens again when its 15-minute window ends.`,
    Math.max(1, Math.ceil((until - at) / 1000)),
  );
const challenge = { headers: { 'WWW-Authenticate': 'Link-Password' } };

/**
 * The document a token opens, as of now: one BatchGetItem (the link, the document, with its
 * text while it fits the item, and the repository), then:
 * - no password: `lastUsedAt` when due (one conditional UpdateItem, at most once a minute);
 * - a password: the check claimed in the link's window first (`claimCheck`, one conditional
 *   UpdateItem), then scrypt; a wrong password keeps its claim (that is the counted try), a right
 *   one gives it back (`giveBack`, one UpdateItem that also writes `lastUsedAt` when due).
 * Large text's content item is read beside the last write, not in the first round trip: its key
 * holds the document's `contentVersion`, which only the document item says (docs/data-model.md:
 * Share links).
 *
 * Why claim before the check (docs/data-model.md: the lock): only a claimed check runs scrypt, so
 * parallel guesses never run more than LOCK_TRIES checks a window (32 MiB and ~85 ms of a core
 * each), and never learn more than LOCK_TRIES answers. The price is a right password's second
 * write: the table cannot tell a right claim from a wrong one until the check is done.
 */
export async function openLink(
  token: string,
  password: string | undefined,
  options: { content: boolean },
): Promise<{ document: Document; objectKey?: string }> {
  const named = parseToken(token);
  if (!named) throw linkNotFound();
  const key = linkKey(named.documentId, named.linkId);
  const lookup = await getItems([key, repositoryKey(named.repositoryId), ...sharedDocumentKeys(named.documentId)]);
  const stored = lookup(key) as (Item & StoredLink) | undefined;
  const at = Date.now();
  const live = liveDocumentIn(lookup, named.documentId);
  if (
    !stored ||
    !sameHash(stored.tokenHash, hashToken(token)) ||
    stored.repositoryId !== named.repositoryId ||
    (stored.expiry !== undefined && Date.parse(stored.expiry) <= at) ||
    !lookup(repositoryKey(named.repositoryId)) ||
    !live
  )
    throw linkNotFound();
  if (isLocked(stored, at)) throw locked(stored.lock!.until, at);
  if (!stored.password) {
    const [, shared] = await Promise.all([touch(stored, at), sharedDocumentOf(live, lookup, options)]);
    return shared;
  }
  if (password === undefined)
    throw new HttpError('link-password-required', 'This link needs its password: send it in `Link-Password`.', challenge);
  const window = await claimCheck(stored, at);
  const right = await passwordMatches(password, stored.password);
  // One line per scrypt check, never the token: how many checks a link took is in the logs.
  logger.info('share link: password checked', { linkId: stored.id, right });
  if (!right) throw new HttpError('link-password-wrong', 'The password is wrong.', challenge);
  // Large text's content item (when the route sends content) is read beside the give-back.
  const [, content] = await Promise.all([
    giveBack(stored, window, at),
    options.content && currentContentKeyOf(live) ? getItems([currentContentKeyOf(live)!]) : undefined,
  ]);
  return sharedDocumentOf(live, (k) => content?.(k) ?? lookup(k), options);
}

function sameHash(stored: string, computed: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(computed);
  return a.length === b.length && timingSafeEqual(a, b);
}

const isLocked = (link: StoredLink, at: number) => link.lock !== undefined && link.lock.until > at && link.lock.tries >= LOCK_TRIES;
const lastUsedDue = (stored: StoredLink, at: number) =>
  stored.lastUsedAt === undefined || Date.parse(stored.lastUsedAt) <= at - LAST_USED_EVERY_MS;
/** `lastUsedAt` not written within the last minute (ISO strings compare as times). */
const lastUsedCondition = '(attribute_not_exists(#lastUsedAt) OR #lastUsedAt <= :minuteAgo)';
const lastUsedValues = (at: number) => ({
  ':now': new Date(at).toISOString(),
  ':minuteAgo': new Date(at - LAST_USED_EVERY_MS).toISOString(),
});

/** `lastUsedAt`, at most once a minute: one conditional UpdateItem when it is due, none otherwise. */
async function touch(stored: StoredLink, at: number): Promise<void> {
  if (!lastUsedDue(stored, at)) return;
  await updateItem(
    update(
      linkKey(stored.documentId, stored.id),
      'SET #lastUsedAt = :now',
      { '#lastUsedAt': 'lastUsedAt' },
      lastUsedValues(at),
      `attribute_exists(PK) AND ${lastUsedCondition}`,
    ),
  );
}

/**
 * A password check, claimed in the link's window with one conditional UpdateItem before scrypt
 * runs: a new window when none is open, else one more try while fewer than LOCK_TRIES are counted.
 * The claim that fails its condition is 429 and runs no check. Racing claims that both found no
 * window open: one opens it, the other counts in it (the failed condition hands back the item as
 * it is). Returns the window's end, for `giveBack`.
 */
async function claimCheck(stored: StoredLink, at: number): Promise<number> {
  const key = linkKey(stored.documentId, stored.id);
  const names = { '#lock': 'lock', '#until': 'until', '#tries': 'tries' };
  let lock = stored.lock;
  for (let attempt = 0; attempt < 5; attempt++) {
    const open = lock !== undefined && lock.until > at;
    const result = open
      ? await updateItem(
          update(
            key,
            'SET #lock.#tries = #lock.#tries + :one',
            names,
            { ':one': 1, ':until': lock!.until, ':max': LOCK_TRIES },
            '#lock.#until = :until AND #lock.#tries < :max',
          ),
        )
      : await updateItem(
          update(
            key,
            'SET #lock = :lock',
            { '#lock': 'lock', '#until': 'until' },
            { ':lock': { until: at + LOCK_WINDOW_MS, tries: 1 }, ':now': at },
            'attribute_exists(PK) AND (attribute_not_exists(#lock) OR #lock.#until <= :now)',
          ),
        );
    if (result.updated) return open ? lock!.until : at + LOCK_WINDOW_MS;
    const current = result.item as StoredLink | undefined;
    if (!current) throw linkNotFound(); // revoked meanwhile
    if (isLocked(current, at)) throw locked(current.lock!.until, at);
    lock = current.lock;
  }
  throw throttled('Too many password checks at once for this link; retry shortly.');
}

/**
 * A right password's claim given back, in the window it was counted in (a window that ended
 * meanwhile has nothing to give back), with `lastUsedAt` when it is due: one UpdateItem. A link
 * revoked during the check is 404.
 */
async function giveBack(stored: StoredLink, window: number, at: number): Promise<void> {
  const due = lastUsedDue(stored, at);
  const names = { '#lock': 'lock', '#until': 'until', '#tries': 'tries', ...(due ? { '#lastUsedAt': 'lastUsedAt' } : {}) };
  const values = { ':one': 1, ':until': window, ...(due ? { ':now': new Date(at).toISOString() } : {}) };
  const result = await updateItem(
    update(
      linkKey(stored.documentId, stored.id),
      `SET #lock.#tries = #lock.#tries - :one${due ? ', #lastUsedAt = :now' : ''}`,
      names,
      values,
      'attribute_exists(PK) AND #lock.#until = :until AND #lock.#tries >= :one',
    ),
  );
  if (!result.updated && !result.item) throw linkNotFound(); // revoked meanwhile
}
