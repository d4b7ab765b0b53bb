/** GET /uploads/{id} — an upload, with the parts the bucket holds (to resume after a crash). */

import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { idParams } from '#core/requests';
import { getUpload } from '#core/use-cases/uploads';

export const operation = {
  tag: 'Uploads',
  access: 'uploader',
  example: { request: (s) => ({ params: { id: s.upload } }) },
  summary: 'Get an upload',
  description: '`received` lists the parts the bucket holds while the upload is open: send the others, then complete it.',
  params: idParams,
  success: { status: 200, description: 'The upload.', body: 'Upload' },
  errors: {
    'not-found': 'No such upload, or another user began it.',
    'upload-expired': 'The upload expired (24 hours after it began).',
  },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params }) => getUpload(caller, params.id));
