/** POST /{id}/trash/{itemId}/restore — bring a document or folder back from the trash. */
import { type Operation, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { restoreBody, trashItemParams } from '#core/requests';
import { restoreFromTrash } from '#core/use-cases/restore';

export const operation = {
  tag: 'Trash',
  access: 'editor',
  example: { request: (s) => ({ params: { id: s.repository, itemId: s.trashedDocument } }), consumes: true },
  summary: 'Restore an item from the trash',
  description:
    'Puts the document or folder back where it was, with everything that was below it, and the same `version`. The body ' +
    '(optional) puts it into another `folderId` of the repository and/or under another `name`: the item is then also moved ' +
    'or renamed, and its `version` goes up by one.',
  params: trashItemParams,
  body: restoreBody,
  bodyOptional: true,
  success: { status: 200, description: 'The document or folder, as it is now.', body: 'RestoredItem', etag: true },
  errors: {
    'not-found': 'No such repository (or you are not a member of it), no such item in its trash, or no such target folder.',
    forbidden: readOnly,
    conflict: 'The folder it goes back into has an item of that name: give another `name`.',
    'restore-target-gone': 'The folder it was in is gone or in the trash: give a `folderId`.',
    'folder-cycle': 'The target folder is the folder itself or below it.',
    'depth-limit': 'The folder, or a folder below it, would be more than 50 levels below the root folder.',
    'quota-exceeded':
      'A document restored under another name or into another folder is a new version: it would take the repository past its storage quota.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params, body }) => restoreFromTrash(caller, params.id, params.itemId, body));
