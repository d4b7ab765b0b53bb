/** POST /uploads/{id}/parts — fresh presigned URLs for some parts of an open upload. */

import type { Operation } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { idParams, partNumbersBody } from '#core/requests';
import { partUrls } from '#core/use-cases/uploads';

export const operation = {
  tag: 'Uploads',
  access: 'uploader',
  example: { request: (s) => ({ params: { id: s.upload }, body: { numbers: [1] } }) },
  summary: 'Get URLs for parts',
  description: 'Fresh URLs for the parts named (1 to 100 numbers, each within `partCount`), for example after one expired.',
  params: idParams,
  body: partNumbersBody,
  success: { status: 200, description: 'A URL for each part named.', body: 'PartUrls' },
  errors: {
    'not-found': 'No such upload, or another user began it.',
    'upload-closed': 'The upload is completed, failed or cancelled.',
    'upload-expired': 'The upload expired (24 hours after it began).',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params, body }) => partUrls(caller, params.id, body.numbers));
