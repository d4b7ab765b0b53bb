/** GET /{id}/folder — the repository's root folder. */
import { endpoint } from '#core/http/endpoint';
import { ok } from '#core/http/responses';
import { idParams } from '#core/schemas';
import { getRootFolder } from '#core/store/folders';

export const handler = endpoint({ params: idParams }, async ({ caller, params }) => ok(await getRootFolder(caller, params.id)));
