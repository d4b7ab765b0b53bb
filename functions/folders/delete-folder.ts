/** DELETE /folder/{id} — move a folder, with everything below it, to the trash; guarded by If-Match. */
import { notVisible, type Operation, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { deleteFolderQuery, idParams } from '#core/requests';
import { trashFolder } from '#core/use-cases/trash';

export const operation = {
  tag: 'Folders',
  access: 'editor',
  example: { request: (s) => ({ params: { id: s.folder } }), consumes: true },
  summary: 'Delete a folder (to the trash)',
  description:
    "Moves the folder and everything below it to its repository's trash (`GET /{id}/trash`), where it is one item, restorable " +
    'for 30 days. The folder is gone from its parent at once; what is below it follows within seconds. A folder that is not ' +
    'empty needs `?recursive=true`. The root folder is never deleted (400).',
  params: idParams,
  query: deleteFolderQuery,
  ifMatch: true,
  success: { status: 204, description: 'Moved to the trash.' },
  errors: {
    'not-found': notVisible('folder'),
    forbidden: readOnly,
    'folder-not-empty': 'The folder is not empty, and `recursive=true` was not given.',
    'precondition-failed': 'The stored version is not the one in `If-Match`; nothing changed.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params, query, precondition }) =>
  trashFolder(caller, params.id, precondition, { recursive: query.recursive }),
);
