/** PUT /document — change some fields of a document, or move it; guarded by If-Match / version. */
import { endpoint } from '#core/http/endpoint';
import { documentResponse } from '#core/http/responses';
import { parseIfMatch } from '#core/preconditions';
import { updateDocumentBody } from '#core/schemas';
import { updateDocument } from '#core/store/documents';

export const handler = endpoint({ body: updateDocumentBody }, async ({ caller, body, headers }) => {
  const { version, ...changes } = body;
  const ifMatch = parseIfMatch(headers['if-match']);
  return documentResponse(await updateDocument(caller, changes, { ifMatch, version }));
});
