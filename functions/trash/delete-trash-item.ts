/** DELETE /{id}/trash/{itemId} — delete one item of the trash permanently. */
import { type Operation, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { trashItemParams } from '#core/requests';
import { purgeFromTrash } from '#core/use-cases/purge';

export const operation = {
  tag: 'Trash',
  access: 'editor',
  example: { request: (s) => ({ params: { id: s.repository, itemId: s.trashedDocument } }), consumes: true },
  summary: 'Delete an item of the trash permanently',
  description:
    'The document, or the folder and everything that was below it, is deleted for good: it leaves the trash at once, and its ' +
    'storage is reclaimed in the background.',
  params: trashItemParams,
  success: { status: 204, description: 'Deleted permanently.' },
  errors: {
    'not-found': 'No such repository (or you are not a member of it), or no such item in its trash.',
    forbidden: readOnly,
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params }) => purgeFromTrash(caller, params.id, params.itemId));
