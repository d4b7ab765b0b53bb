/** DELETE /{id}/trash — empty the repository's trash, permanently (owner). */
import type { Operation } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { idParams } from '#core/requests';
import { emptyTrash } from '#core/use-cases/purge';

export const operation = {
  tag: 'Trash',
  access: 'owner',
  example: { request: (s) => ({ params: { id: s.repository } }) },
  summary: 'Empty the trash',
  description:
    'Owner only. Everything in the trash is deleted for good: from the answer on the trash lists nothing deleted before it, and ' +
    'the storage is reclaimed in the background.',
  params: idParams,
  success: { status: 204, description: 'Emptied.' },
  errors: {
    'not-found': 'No such repository, or you are not a member of it.',
    forbidden: 'Only an owner may empty the trash.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params }) => emptyTrash(caller, params.id));
