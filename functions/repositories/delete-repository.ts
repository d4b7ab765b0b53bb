/** DELETE /{id} — delete a repository and everything in it, permanently (owner); guarded by If-Match. */
import type { Operation } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { deleteRepository } from '#core/items/repository';
import { idParams } from '#core/requests';

export const operation = {
  tag: 'Repositories',
  access: 'owner',
  example: { request: (s) => ({ params: { id: s.repository } }), consumes: true },
  summary: 'Delete a repository',
  description:
    'Owner only; permanent (nothing goes to the trash). From the answer on, the repository and everything in it is 404 for ' +
    "every member and gone from every member's `GET /`; its storage is reclaimed in the background.",
  params: idParams,
  ifMatch: true,
  success: { status: 204, description: 'Deleted.' },
  errors: {
    'not-found': 'No such repository, or you are not a member of it.',
    forbidden: 'Only an owner may delete a repository.',
    'precondition-failed': 'The stored version is not the one in `If-Match`; nothing changed.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params, precondition }) => deleteRepository(caller, params.id, precondition));
