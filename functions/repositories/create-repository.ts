/** POST / — a repository with its root folder; the caller becomes its owner. */

import type { Operation } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { createRepository } from '#core/items/repository';
import { formatCount, MAX_REPOSITORIES_PER_USER } from '#core/limits';
import { createRepositoryBody } from '#core/requests';

export const operation = {
  tag: 'Repositories',
  access: 'signed-in',
  example: { request: (s) => ({ body: { name: `Project ${s.unique}` } }) },
  summary: 'Create a repository',
  description: 'Creates the repository, its root folder and your `owner` membership in one transaction.',
  body: createRepositoryBody,
  success: { status: 201, description: 'The new repository.', body: 'Repository', location: '/{id}', etag: true },
  errors: {
    'repository-limit': `You are already a member of ${formatCount(MAX_REPOSITORIES_PER_USER)} repositories, the most one user may be in.`,
  },
} as const satisfies Operation;

export const handler = writeEndpoint(operation, ({ caller, body }) => createRepository(caller, body));
