/** GET /document/{id}/revisions/{version}/content — a revision's content as bytes: inline text, or a 302 to its file. */
import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { revisionParams } from '#core/requests';
import { revisionContent } from '#core/use-cases/content';

export const operation = {
  tag: 'Revisions',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.document, version: '1' } }) },
  summary: "Get a revision's content",
  description:
    "As `GET /document/{id}/content`, for one revision: its bytes (inline text) or a 302 to its file, with the revision's " +
    '`contentType` and name.',
  params: revisionParams,
  success: {
    status: 200,
    description: "The revision's bytes (inline text), with its `contentType`.",
    redirect: "A file: `Location` is a presigned URL of the bucket that answers with the revision's bytes.",
  },
  errors: {
    'not-found': 'No such document, or you are not a member of its repository; or the document has no such revision (any longer).',
  },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params }) => revisionContent(caller, params.id, params.version));
