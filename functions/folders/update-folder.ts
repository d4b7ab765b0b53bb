/** PUT /folder — rename a folder, or move it within its repository; guarded by If-Match / version. */
import { notVisible, type Operation, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { updateFolderBody } from '#core/requests';
import { updateFolder } from '#core/use-cases/move-folder';

export const operation = {
  tag: 'Folders',
  access: 'editor',
  example: { request: (s) => ({ body: { id: s.folder, name: `Archive ${s.unique}` } }) },
  summary: 'Rename or move a folder',
  description:
    'Changes the fields sent. `parentId` moves it, with everything below it, into another folder of the same repository (a ' +
    'folder of another repository is 400). The root folder is renamed only with its repository and never moved (400). ' +
    'Every update adds 1 to `version`; with `If-Match` or `version`, it applies only to that version.',
  body: updateFolderBody,
  ifMatch: true,
  success: { status: 200, description: 'The updated folder.', body: 'Folder', etag: true },
  errors: {
    'not-found': notVisible('folder or target folder'),
    forbidden: readOnly,
    conflict: 'The target folder already has a folder or document of that name.',
    'folder-cycle': 'The target is the folder itself or a folder below it.',
    'depth-limit': 'The folder, or a folder below it, would be more than 50 levels below the root folder.',
    'precondition-failed': 'The stored version is not the one in `If-Match` or `version`; nothing changed.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, body: { version: _, ...changes }, precondition }) =>
  updateFolder(caller, changes, precondition),
);
