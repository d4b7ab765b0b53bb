/** GET /{id} — one repository, with the caller's role. */
import { endpoint } from '#core/http/endpoint';
import { ok } from '#core/http/responses';
import { idParams } from '#core/schemas';
import { getRepository } from '#core/store/repositories';

export const handler = endpoint({ params: idParams }, async ({ caller, params }) => ok(await getRepository(caller, params.id)));
