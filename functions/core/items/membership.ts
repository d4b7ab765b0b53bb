/**
 * A user's side of their repositories: a membership per repository (`USER#<userId>` /
 * `REPO#<nameKey>\x01<repoId>`, what their GET / lists, by name) and their profile
 * (`USER#<userId>` / `PROFILE`: how many repositories they are in, for the limit). Both change
 * in the transactions that change a member (./member.ts), whose item keeps the membership's sort
 * key (`listingKey`): a rename moves the membership, and the member item says where it is.
 */
import { put, remove, type TransactItem, update } from '../db/client';
import { HttpError } from '../errors';
import { MAX_REPOSITORIES_PER_USER } from '../limits';
import type { Role } from '../resources';
import { type Key, membershipKeyOfSortKey, profileKey } from './keys';

/** The membership item at `listing` (a membershipKey()). */
export const putMembership = (listing: Key, repositoryId: string, role: Role, condition?: Parameters<typeof put>[1]) =>
  put({ ...listing, repositoryId, role }, condition);

/** The step that removes the membership the member item names (`listingKey`). */
export const removeMembership = (userId: string, listingKey: string): TransactItem => remove(membershipKeyOfSortKey(userId, listingKey));

/**
 * The step that counts the user into one more repository, within the limit (409 past it).
 * Named so a transaction can tell that refusal from the others.
 */
export const PROFILE_STEP = 'profile';
export const joinRepositoryStep = (userId: string) =>
  update(
    profileKey(userId),
    'ADD #count :one',
    { '#count': 'repositoryCount' },
    { ':one': 1, ':max': MAX_REPOSITORIES_PER_USER },
    'attribute_not_exists(#count) OR #count < :max',
  );
export const leaveRepositoryStep = (userId: string, condition?: string) =>
  update(profileKey(userId), 'ADD #count :minus', { '#count': 'repositoryCount' }, { ':minus': -1 }, condition);
export const repositoryLimitReached = (userId: string) =>
  new HttpError(
    'repository-limit',
    `${userId} is already a member of ${MAX_REPOSITORIES_PER_USER} repositories, the most one user may be in.`,
  );
