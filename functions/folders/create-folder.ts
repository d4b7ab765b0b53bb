/** POST /folder — a sub folder of `parentId`. */

import { notVisible, type Operation, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { createFolder } from '#core/items/folder';
import { createFolderBody } from '#core/requests';

export const operation = {
  tag: 'Folders',
  access: 'editor',
  example: { request: (s) => ({ body: { parentId: s.folder, name: `Drafts ${s.unique}` } }) },
  summary: 'Create a folder',
  description: 'A sub folder of `parentId`. Needs the `owner` or `editor` role.',
  body: createFolderBody,
  success: { status: 201, description: 'The new folder.', body: 'Folder', location: '/folder/{id}', etag: true },
  errors: {
    'not-found': notVisible('parent folder'),
    forbidden: readOnly,
    conflict: 'The parent folder already has a folder or document of that name (case-insensitively).',
    'depth-limit': 'The parent folder is 50 levels below the root folder: nothing may be made in it.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, body }) => createFolder(caller, body));
