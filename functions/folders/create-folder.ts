/** POST /folder — a sub folder of `parentId`. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation, readOnly } from '#core/http/operation';
import { createFolderBody } from '#core/schemas';
import { createFolder } from '#core/store/folders';

export const operation = {
  tag: 'Folders',
  summary: 'Create a folder',
  description: 'A sub folder of `parentId`. Needs the `owner` or `editor` role.',
  body: createFolderBody,
  success: { status: 201, description: 'The new folder.', body: 'Folder', location: '/folder/{id}' },
  errors: {
    'not-found': notVisible('parent folder'),
    forbidden: readOnly,
    conflict: 'The parent folder already has a folder or document of that name (case-insensitively).',
  },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, body }) => createFolder(caller, body));
