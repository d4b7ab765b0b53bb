/** POST /folder — a sub folder of `parentId`. */
import { endpoint } from '#core/http/endpoint';
import { created } from '#core/http/responses';
import { createFolderBody } from '#core/schemas';
import { createFolder } from '#core/store/folders';

export const handler = endpoint({ body: createFolderBody }, async ({ caller, body }) => {
  const folder = await createFolder(caller, body);
  return created(`/folder/${folder.id}`, folder);
});
