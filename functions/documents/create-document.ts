/** POST /document — a document in `folderId`, optionally with a client-chosen id. */

import { notVisible, type Operation, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { createDocument } from '#core/items/document';
import { createDocumentBody } from '#core/requests';

export const operation = {
  tag: 'Documents',
  access: 'editor',
  example: { request: (s) => ({ body: { folderId: s.folder, name: `notes-${s.unique}.md`, content: '# Notes' } }) },
  summary: 'Create a document',
  description:
    'A document in `folderId`. `content` defaults to `""`, `contentType` to `text/plain; charset=utf-8`. ' +
    'An `id` may be supplied; one that exists is 409. Needs the `owner` or `editor` role.',
  body: createDocumentBody,
  success: { status: 201, description: 'The new document (version 1).', body: 'Document', location: '/document/{id}', etag: true },
  errors: {
    'not-found': notVisible('folder'),
    forbidden: readOnly,
    conflict: 'The folder already has a folder or document of that name, or a document with that `id` exists.',
    'quota-exceeded': "The content's size would take the repository past its storage quota (`GET /{id}`: `usage`).",
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, body }) => createDocument(caller, body));
