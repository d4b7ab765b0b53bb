/** DELETE /links/{linkId} — revoke a share link (owner; an editor for the links they made). */
import type { Operation } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { revokeLink } from '#core/items/link';
import { linkParams } from '#core/requests';

export const operation = {
  tag: 'Links',
  access: 'owner',
  example: { request: (s) => ({ params: { linkId: s.link } }), consumes: true },
  summary: 'Revoke a share link',
  description:
    'From the answer on, the link is 404 for everyone, and it is never listed again. An owner revokes any link of the ' +
    'repository; an editor only the links they made.',
  params: linkParams,
  success: { status: 204, description: 'Revoked.' },
  errors: {
    'not-found': 'No such link (or it was revoked already), or you are not a member of its repository.',
    forbidden: 'You are a viewer, or an editor and the link is not one you made.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params }) => revokeLink(caller, params.linkId));
