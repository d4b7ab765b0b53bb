/** GET /document/{id}/path — the folders from the root down to the document's folder (breadcrumbs). */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { idParams } from '#core/requests';
import { getDocumentPath } from '#core/use-cases/document-path';

export const operation = {
  tag: 'Documents',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.document } }) },
  summary: "Get a document's folder path",
  description:
    "The folders from the repository's root folder down to the document's folder, root first: for breadcrumbs. Not paged " +
    '(folders nest at most 50 levels deep).',
  params: idParams,
  success: { status: 200, description: 'The folders, root first.', body: 'FolderPath' },
  errors: { 'not-found': notVisible('document') },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params }) => getDocumentPath(caller, params.id));
