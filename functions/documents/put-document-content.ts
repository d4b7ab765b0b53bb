/** PUT /document/{id}/content — the raw body as the document's new content, a file; guarded by If-Match. */

import * as z from 'zod/mini';
import { invalidField } from '#core/errors';
import { notVisible, type Operation, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { contentTypeSchema, idParams, MAX_RAW_CONTENT_BYTES, RAW_CONTENT_TYPE } from '#core/requests';
import { putContent } from '#core/use-cases/content';

export const operation = {
  tag: 'Documents',
  access: 'editor',
  example: { request: (s) => ({ params: { id: s.document }, raw: { body: '%PDF-1.7 example', contentType: 'application/pdf' } }) },
  summary: "Replace a document's content with a file",
  description:
    `The body's bytes, as sent (never parsed, whatever its \`Content-Type\`), become a new version with \`storage: "file"\`; ` +
    `\`Content-Type\` is recorded as \`contentType\` (none: \`${RAW_CONTENT_TYPE}\`). At most ${MAX_RAW_CONTENT_BYTES} bytes ` +
    '(larger files: `POST /uploads`). With `If-Match`, it applies only to that version. Needs the `owner` or `editor` role.',
  params: idParams,
  rawBody: { maxBytes: MAX_RAW_CONTENT_BYTES, description: 'The content: bytes of any media type.' },
  ifMatch: true,
  success: { status: 200, description: 'The document, at its new version.', body: 'Document', etag: true },
  errors: {
    'not-found': notVisible('document'),
    forbidden: readOnly,
    'quota-exceeded': 'The bytes would take the repository past its storage quota (`GET /{id}`: `usage`).',
    'precondition-failed': 'The stored version is not the one in `If-Match`; nothing changed.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params, headers, rawBody, precondition }) => {
  const contentType = headers['content-type'] ?? RAW_CONTENT_TYPE;
  if (!z.safeParse(contentTypeSchema, contentType).success) {
    throw invalidField('Content-Type', 'must be a media type such as "application/pdf", at most 255 characters');
  }
  return putContent(caller, params.id, rawBody, contentType, precondition);
});
