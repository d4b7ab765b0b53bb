/** GET /{id}/trash — the repository's trash, newest first. */
import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { listTrash } from '#core/items/trash';
import { idParams, pageQuery } from '#core/requests';

export const operation = {
  tag: 'Trash',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.repository } }) },
  summary: "List a repository's trash",
  description:
    'What was deleted and can still be restored, newest first. A deleted folder is one item; what was below it is not listed ' +
    'on its own. Items leave the trash when restored, purged, or 30 days after they were deleted (`purgeAt`).',
  params: idParams,
  query: pageQuery,
  success: { status: 200, description: 'A page of trash items.', body: 'TrashList' },
  errors: { 'not-found': 'No such repository, or you are not a member of it.' },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params, query }) => listTrash(caller, params.id, query));
