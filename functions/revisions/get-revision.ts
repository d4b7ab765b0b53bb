/** GET /document/{id}/revisions/{version} — one revision, with its content. */
import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { revisionParams } from '#core/requests';
import { getRevision } from '#core/use-cases/revisions';

export const operation = {
  tag: 'Revisions',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.document, version: '1' } }) },
  summary: 'Get a revision',
  description: 'One version of the document as it was written, with its content.',
  params: revisionParams,
  success: { status: 200, description: 'The revision, with its content.', body: 'Revision' },
  errors: {
    'not-found': 'No such document, or you are not a member of its repository; or the document has no such revision (any longer).',
  },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params }) => getRevision(caller, params.id, params.version));
