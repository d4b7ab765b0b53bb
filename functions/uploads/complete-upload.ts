/** POST /uploads/{id}/complete — check the bytes sent and make them the document's new version. */

import { accepted } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { idParams } from '#core/requests';
import { completeUpload, VERIFY_RETRY_SECONDS } from '#core/use-cases/finish-upload';

export const operation = {
  tag: 'Uploads',
  access: 'uploader',
  example: { request: (s) => ({ params: { id: s.sentUpload } }) },
  summary: 'Complete an upload',
  description:
    'Checks every part is there, the size and the declared `sha256`, then makes the new version current in one step (with ' +
    'its revision and one change). Safe to repeat and to race: once done, every repeat answers the same Document. A large ' +
    'file answers 202 with `Retry-After` while its bytes are verified: ask again.',
  params: idParams,
  success: {
    status: 200,
    description: 'The document, at the version the upload made.',
    body: 'Document',
    etag: true,
    accepted: { description: 'The bytes are being verified: repeat the request after `Retry-After` seconds.', body: 'Upload' },
  },
  errors: {
    'not-found': 'No such upload, or another user began it; or its folder or document is gone or in the trash.',
    forbidden: 'Your role no longer allows the write.',
    conflict: 'The name is taken in the folder now.',
    'upload-incomplete': 'Parts are missing: send them and complete again (the upload stays open).',
    'upload-mismatch': 'The bytes are not the size or SHA-256 declared: the upload failed.',
    'upload-closed': 'The upload was cancelled.',
    'upload-expired': 'The upload expired (24 hours after it began).',
    'precondition-failed': 'The document changed since the upload began (it named a `version`).',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, async ({ caller, params }) => {
  const completion = await completeUpload(caller, params.id);
  return 'document' in completion ? completion.document : accepted(completion.verifying, VERIFY_RETRY_SECONDS);
});
