/** DELETE /{id}/members/{userId} — remove a member (owner), or leave (any member, themselves). */

import type { Operation } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { removeMember } from '#core/items/member';
import { memberParams } from '#core/requests';

export const operation = {
  tag: 'Members',
  access: 'owner',
  example: { request: (s) => ({ params: { id: s.repository, userId: s.member } }), consumes: true },
  summary: 'Remove a member, or leave',
  description:
    'An owner removes any member; any member removes themselves (leaves). From the answer on, the user gets 404 for ' +
    'everything in the repository, and it is gone from their `GET /`.',
  params: memberParams,
  success: { status: 204, description: 'Removed.' },
  errors: {
    'not-found': 'No such repository, you are not a member of it, or `userId` is not a member.',
    forbidden: 'You are not an owner, and `userId` is not you.',
    'last-owner': 'The member is the only owner.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params }) => removeMember(caller, params.id, params.userId));
