/** GET /document/{id} — one document with its content and ETag. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { getDocument } from '#core/items/document';
import { idParams } from '#core/requests';

export const operation = {
  tag: 'Documents',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.document } }) },
  summary: 'Get a document',
  params: idParams,
  success: { status: 200, description: 'The document, with its content.', body: 'Document', etag: true },
  errors: { 'not-found': notVisible('document') },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params }) => getDocument(caller, params.id));
