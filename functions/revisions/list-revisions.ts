/** GET /document/{id}/revisions — a document's revisions, newest first, in pages. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { idParams, pageQuery } from '#core/requests';
import { listRevisions } from '#core/use-cases/revisions';

export const operation = {
  tag: 'Revisions',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.document } }) },
  summary: "List a document's revisions",
  description:
    'Every version of the document is a revision, the current one included, newest first, without content. ' +
    'The service keeps at least the last 100, or all from the last 30 days, whichever is more.',
  params: idParams,
  query: pageQuery,
  success: { status: 200, description: 'A page of revisions, newest first.', body: 'RevisionList' },
  errors: { 'not-found': notVisible('document') },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params, query }) => listRevisions(caller, params.id, query));
