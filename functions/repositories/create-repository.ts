/** POST / — a repository with its root folder; the caller becomes its owner. */
import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { createRepositoryBody } from '#core/schemas';
import { createRepository } from '#core/store/repositories';

export const operation = {
  tag: 'Repositories',
  summary: 'Create a repository',
  description: 'Creates the repository, its root folder and your `owner` membership in one transaction.',
  body: createRepositoryBody,
  success: { status: 201, description: 'The new repository.', body: 'Repository', location: '/{id}' },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, body }) => createRepository(caller, body));
