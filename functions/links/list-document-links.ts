/** GET /document/{id}/links — a document's share links, newest first (any member). */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { listDocumentLinks } from '#core/items/link';
import { idParams, pageQuery } from '#core/requests';

export const operation = {
  tag: 'Links',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.document } }) },
  summary: "List a document's share links",
  description: 'Its links, newest first, in pages, without tokens. Revoked links are never listed.',
  params: idParams,
  query: pageQuery,
  success: { status: 200, description: 'A page of links, newest first.', body: 'LinkList' },
  errors: { 'not-found': notVisible('document') },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params, query }) => listDocumentLinks(caller, params.id, query));
