/** GET /folder/{id}/folders — the folder's direct sub folders, by name. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { listFolders } from '#core/items/folder';
import { idParams, pageQuery } from '#core/requests';

export const operation = {
  tag: 'Folders',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.folder } }) },
  summary: "List a folder's sub folders",
  description: 'Direct sub folders only, by name, case-insensitively.',
  params: idParams,
  query: pageQuery,
  success: { status: 200, description: 'A page of folders.', body: 'FolderList' },
  errors: { 'not-found': notVisible('folder') },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params, query }) => listFolders(caller, params.id, query));
