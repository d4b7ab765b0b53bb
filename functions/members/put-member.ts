/** PUT /{id}/members/{userId} — give a user a role in a repository, or change it (owner). */
import { created } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { putMember } from '#core/items/member';
import { formatCount, MAX_MEMBERS, MAX_REPOSITORIES_PER_USER } from '#core/limits';
import { memberParams, putMemberBody } from '#core/requests';

export const operation = {
  tag: 'Members',
  access: 'owner',
  example: { request: (s) => ({ params: { id: s.repository, userId: `user-${s.unique}` }, body: { role: 'viewer' } }) },
  summary: 'Give a user a role, or change it',
  description:
    'Makes `userId` (any JWT `sub`: the user need not have called the API yet) a member with this role, or changes ' +
    'the role of a member. Idempotent: the same role again answers 200 and changes nothing. A repository keeps at ' +
    'least one owner: ownership passes by making another member owner, then stepping down or leaving.',
  params: memberParams,
  body: putMemberBody,
  success: {
    status: 200,
    description: 'The member, whose role was changed (or already was this one).',
    body: 'Member',
    created: { description: 'The user was not a member; now they are, with this role.', location: '/{id}/members/{userId}' },
  },
  errors: {
    'not-found': notVisible('repository'),
    forbidden: 'Your role in the repository does not allow managing its members; only an owner may.',
    'last-owner': 'The member is the only owner and the role given is not `owner`.',
    'member-limit': `The user is not a member and the repository already has ${formatCount(MAX_MEMBERS)} members.`,
    'repository-limit': `The user is not a member and is already a member of ${formatCount(MAX_REPOSITORIES_PER_USER)} repositories.`,
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, async ({ caller, params, body }) => {
  const { member, created: made } = await putMember(caller, params.id, params.userId, body.role);
  return made ? created(member) : member;
});
