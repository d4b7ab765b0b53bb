/** GET /folder/{id}/folders — the folder's direct sub folders, by name. */
import { endpoint } from '#core/http/endpoint';
import { ok } from '#core/http/responses';
import { idParams, pageQuery } from '#core/schemas';
import { listFolders } from '#core/store/folders';

export const handler = endpoint({ params: idParams, query: pageQuery }, async ({ caller, params, query }) =>
  ok(await listFolders(caller, params.id, query)),
);
