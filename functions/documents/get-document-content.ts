/** GET /document/{id}/content — a document's content as bytes: inline text, or a 302 to its file in the bucket. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { idParams } from '#core/requests';
import { documentContent } from '#core/use-cases/content';

export const operation = {
  tag: 'Documents',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.document } }) },
  summary: "Get a document's content",
  description:
    'Inline text (`storage: "inline"`): 200 with the bytes of `content` in UTF-8. A file (`storage: "file"`): 302 to a ' +
    'presigned URL of the bucket, good for `GET` (or `HEAD`, with `Range`) of that one object for at most 15 minutes. ' +
    "Either way as an attachment with the document's name and `contentType`, with `X-Content-Type-Options: nosniff` and " +
    '`Content-Security-Policy: sandbox`.',
  params: idParams,
  success: {
    status: 200,
    description: "The content's bytes (inline text), with the document's `contentType`.",
    redirect: "A file: `Location` is a presigned URL of the bucket that answers with the file's bytes.",
  },
  errors: { 'not-found': notVisible('document') },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params }) => documentContent(caller, params.id));
