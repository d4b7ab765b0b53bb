/** GET /document/{id} — one document with its content and ETag. */
import { endpoint } from '#core/http/endpoint';
import { documentResponse } from '#core/http/responses';
import { idParams } from '#core/schemas';
import { getDocument } from '#core/store/documents';

export const handler = endpoint({ params: idParams }, async ({ caller, params }) => documentResponse(await getDocument(caller, params.id)));
