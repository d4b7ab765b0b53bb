/** POST /uploads — begin sending a file: a new document, or a new version of one. */

import { notVisible, type Operation, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { startUploadBody } from '#core/requests';
import { startUpload } from '#core/use-cases/uploads';

export const operation = {
  tag: 'Uploads',
  access: 'editor',
  example: { request: (s) => ({ body: { folderId: s.folder, name: `scan-${s.unique}.pdf`, size: 5, contentType: 'application/pdf' } }) },
  summary: 'Begin an upload',
  description:
    '`{folderId, name, size, contentType?, sha256?, id?}` makes a new document; `{documentId, size, contentType?, sha256?, version?}` ' +
    'a new version of one. Checks what can be known before any byte (role, folder or document, the name free, `version`, ' +
    '`size` within 5 TiB and within the quota) and reserves `size` of the quota. The answer holds presigned URLs for the ' +
    'first 100 parts: send each part with one plain `PUT` of its bytes, then `POST /uploads/{id}/complete`.',
  body: startUploadBody,
  success: { status: 201, description: 'The upload, with URLs for its first parts.', body: 'Upload', location: '/uploads/{id}' },
  errors: {
    'not-found': notVisible('folder or document'),
    forbidden: readOnly,
    conflict: 'The folder already has a folder or document of that name, or a document with that `id` exists.',
    'quota-exceeded': "The repository's storage quota has no room for `size` more bytes.",
    'precondition-failed': 'The document is not at `version`.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, body }) => startUpload(caller, body));
