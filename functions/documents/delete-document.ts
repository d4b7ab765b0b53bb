/** DELETE /document/{id} — move a document to its repository's trash; guarded by If-Match. */

import { notVisible, type Operation, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { idParams } from '#core/requests';
import { trashDocument } from '#core/use-cases/trash';

export const operation = {
  tag: 'Documents',
  access: 'editor',
  example: { request: (s) => ({ params: { id: s.document } }), consumes: true },
  summary: 'Delete a document (to the trash)',
  description: "Moves the document to its repository's trash (`GET /{id}/trash`), from where it can be restored for 30 days.",
  params: idParams,
  ifMatch: true,
  success: { status: 204, description: 'Moved to the trash.' },
  errors: {
    'not-found': notVisible('document'),
    forbidden: readOnly,
    'precondition-failed': 'The stored version is not the one in `If-Match`; nothing changed.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params, precondition }) => trashDocument(caller, params.id, precondition));
