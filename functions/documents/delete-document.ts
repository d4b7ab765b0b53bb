/** DELETE /document/{id} — remove a document; guarded by If-Match. */
import { endpoint } from '#core/http/endpoint';
import { noContent } from '#core/http/responses';
import { parseIfMatch } from '#core/preconditions';
import { idParams } from '#core/schemas';
import { deleteDocument } from '#core/store/documents';

export const handler = endpoint({ params: idParams }, async ({ caller, params, headers }) => {
  await deleteDocument(caller, params.id, { ifMatch: parseIfMatch(headers['if-match']) });
  return noContent();
});
