/** GET /folder/{id} — one folder. */
import { endpoint } from '#core/http/endpoint';
import { ok } from '#core/http/responses';
import { idParams } from '#core/schemas';
import { getFolder } from '#core/store/folders';

export const handler = endpoint({ params: idParams }, async ({ caller, params }) => ok(await getFolder(caller, params.id)));
