import { createDocumentsClient } from './index';

const api = createDocumentsClient(process.env.API ?? 'http://127.0.0.1:3000', { token: process.env.TOKEN });

// Paths, parameters and bodies are checked by the compiler; `data` is typed per operation.
const { data: repo, error } = await api.POST('/', { body: { name: 'Typed handbook' } });
if (!repo) throw new Error(`not created: ${JSON.stringify(error)}`); // error: the problem+json
// A retry with the same Idempotency-Key gets the first answer again and changes nothing.
const retryable = { 'Idempotency-Key': crypto.randomUUID() };
const { data: folder } = await api.POST('/folder', { body: { parentId: repo.rootFolderId, name: 'Policies' }, headers: retryable });
const { data: again } = await api.POST('/folder', { body: { parentId: repo.rootFolderId, name: 'Policies' }, headers: retryable });
console.log(again!.id === folder!.id); // true: the same folder, made once
const { data: doc } = await api.POST('/document', {
  body: { folderId: folder!.id, name: 'Travel.md', content: '# Travel', contentType: 'text/markdown' },
});

// Lists are pages: `limit`, and the previous page's `nextToken`.
const { data: page } = await api.GET('/folder/{id}/documents', { params: { path: { id: folder!.id }, query: { limit: 10 } } });
console.log(page!.items.map((d) => `${d.name} v${d.version}`));

// Write only over the version you read: a stale If-Match changes nothing (412).
const { data: read, response } = await api.GET('/document/{id}', { params: { path: { id: doc!.id } } });
const { data: updated } = await api.PUT('/document', {
  body: { id: read!.id, content: '# Travel\n\nBook early.' },
  headers: { 'If-Match': response.headers.get('ETag')! },
});
console.log(updated!.version); // 2
const stale = await api.DELETE('/document/{id}', { params: { path: { id: doc!.id } }, headers: { 'If-Match': '"1"' } });
console.log(stale.response.status, stale.error); // 412 { type: 'urn:problem-type:documents:precondition-failed', ... }
