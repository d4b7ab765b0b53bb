/** GET / — the repositories the caller is a member of. */
import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { listRepositories } from '#core/items/repository';
import { pageQuery } from '#core/requests';

export const operation = {
  tag: 'Repositories',
  access: 'signed-in',
  example: { request: () => ({}) },
  summary: 'List your repositories',
  description: 'The repositories you are a member of, with your role in each, by name.',
  query: pageQuery,
  success: { status: 200, description: 'A page of repositories.', body: 'RepositoryList' },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, query }) => listRepositories(caller, query));
