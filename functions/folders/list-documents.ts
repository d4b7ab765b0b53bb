/** GET /folder/{id}/documents — the documents directly in the folder, by name, without content. */
import { endpoint } from '#core/http/endpoint';
import { ok } from '#core/http/responses';
import { idParams, pageQuery } from '#core/schemas';
import { listDocuments } from '#core/store/folders';

export const handler = endpoint({ params: idParams, query: pageQuery }, async ({ caller, params, query }) =>
  ok(await listDocuments(caller, params.id, query)),
);
