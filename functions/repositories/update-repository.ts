/** PUT /{id} — rename a repository or change its description (owner); guarded by If-Match / version. */
import type { Operation } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { updateRepository } from '#core/items/repository';
import { idParams, updateRepositoryBody } from '#core/requests';

export const operation = {
  tag: 'Repositories',
  access: 'owner',
  example: { request: (s) => ({ params: { id: s.repository }, body: { description: 'Specs and meeting notes' } }) },
  summary: 'Rename a repository or change its description',
  description:
    'Owner only. Changes the fields sent; the others keep their value. A new name renames the root folder too. Every update ' +
    'adds 1 to `version`; with `If-Match` or `version`, it applies only to that version. Your `GET /` lists it under its new ' +
    "name at once; other members' `GET /` shows the new name at once, and lists it in its new place by name shortly after.",
  params: idParams,
  body: updateRepositoryBody,
  ifMatch: true,
  success: { status: 200, description: 'The updated repository.', body: 'Repository', etag: true },
  errors: {
    'not-found': 'No such repository, or you are not a member of it.',
    forbidden: 'Only an owner may rename or describe a repository.',
    'precondition-failed': 'The stored version is not the one in `If-Match` or `version`; nothing changed.',
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, params, body: { version: _, ...changes }, precondition }) =>
  updateRepository(caller, params.id, changes, precondition),
);
