/** GET /{id}/folder — the repository's root folder. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { getRootFolder } from '#core/items/folder';
import { idParams } from '#core/requests';

export const operation = {
  tag: 'Repositories',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.repository } }) },
  summary: "Get a repository's root folder",
  params: idParams,
  success: { status: 200, description: 'The root folder (`parentId` is `null`).', body: 'Folder', etag: true },
  errors: { 'not-found': notVisible('repository') },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params }) => getRootFolder(caller, params.id));
