/** GET /folder/{id} — one folder. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { getFolder } from '#core/items/folder';
import { idParams } from '#core/requests';

export const operation = {
  tag: 'Folders',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.folder } }) },
  summary: 'Get a folder',
  params: idParams,
  success: { status: 200, description: 'The folder.', body: 'Folder', etag: true },
  errors: { 'not-found': notVisible('folder') },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params }) => getFolder(caller, params.id));
