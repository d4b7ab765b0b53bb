/** DELETE /document/{id} — remove a document; guarded by If-Match. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation, readOnly } from '#core/http/operation';
import { idParams } from '#core/schemas';
import { deleteDocument } from '#core/store/documents';

export const operation = {
  tag: 'Documents',
  summary: 'Delete a document',
  params: idParams,
  ifMatch: true,
  success: { status: 204, description: 'Deleted.' },
  errors: {
    'not-found': notVisible('document'),
    forbidden: readOnly,
    'precondition-failed': 'The stored version is not the one in `If-Match`; nothing changed.',
  },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params, precondition }) => deleteDocument(caller, params.id, precondition));
