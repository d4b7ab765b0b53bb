/** PUT /document — change some fields of a document, or move it; guarded by If-Match / version. */

import { type Operation, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { updateDocument } from '#core/items/document';
import { updateDocumentBody } from '#core/requests';

export const operation = {
  tag: 'Documents',
  access: 'editor',
  example: { request: (s) => ({ body: { id: s.document, content: 'Second draft' } }) },
  summary: 'Update or move a document',
  description:
    'Changes the fields sent; the others keep their value. `folderId` moves it to another folder of the same ' +
    'repository. Every update adds 1 to `version`. With `If-Match` or `version`, it applies only to that version.',
  body: updateDocumentBody,
  ifMatch: true,
  success: { status: 200, description: 'The updated document.', body: 'Document', etag: true },
  errors: {
    'not-found': 'No such document or target folder, or you are not a member of its repository.',
    forbidden: readOnly,
    conflict: 'The target folder already has a folder or document of that name.',
    'quota-exceeded': "The new version's size (every version counts, a rename too) would take the repository past its storage quota.",
    'precondition-failed': 'The stored version is not the one in `If-Match` or `version`; nothing changed.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, body: { version: _, ...changes }, precondition }) =>
  updateDocument(caller, changes, precondition),
);
