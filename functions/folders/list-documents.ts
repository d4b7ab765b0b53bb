/** GET /folder/{id}/documents — the documents directly in the folder, by name, without content. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { listDocuments } from '#core/items/folder';
import { idParams, pageQuery } from '#core/requests';

export const operation = {
  tag: 'Folders',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.folder } }) },
  summary: "List a folder's documents",
  description: 'Documents directly in the folder, by name, case-insensitively; without `content`.',
  params: idParams,
  query: pageQuery,
  success: { status: 200, description: 'A page of documents, without their content.', body: 'DocumentList' },
  errors: { 'not-found': notVisible('folder') },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params, query }) => listDocuments(caller, params.id, query));
