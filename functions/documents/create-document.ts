/** POST /document — a document in `folderId`, optionally with a client-chosen id. */
import { endpoint } from '#core/http/endpoint';
import { documentResponse } from '#core/http/responses';
import { createDocumentBody } from '#core/schemas';
import { createDocument } from '#core/store/documents';

export const handler = endpoint({ body: createDocumentBody }, async ({ caller, body }) =>
  documentResponse(await createDocument(caller, body), 201),
);
