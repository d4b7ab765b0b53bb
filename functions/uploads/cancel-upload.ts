/** DELETE /uploads/{id} — cancel an upload: its bytes are deleted and its quota given back. */

import type { Operation } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { idParams } from '#core/requests';
import { cancelUpload } from '#core/use-cases/uploads';

export const operation = {
  tag: 'Uploads',
  access: 'uploader',
  example: { request: (s) => ({ params: { id: s.upload } }), consumes: true },
  summary: 'Cancel an upload',
  description: 'The parts sent are deleted and the reserved quota given back; it shows `status: "cancelled"` until it expires.',
  params: idParams,
  success: { status: 204, description: 'Cancelled.' },
  errors: {
    'not-found': 'No such upload, or another user began it.',
    'upload-closed': 'The upload is completed or failed.',
    'upload-expired': 'The upload expired (24 hours after it began).',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params }) => cancelUpload(caller, params.id));
