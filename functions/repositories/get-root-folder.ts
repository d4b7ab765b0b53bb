/** GET /{id}/folder — the repository's root folder. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { idParams } from '#core/schemas';
import { getRootFolder } from '#core/store/folders';

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
