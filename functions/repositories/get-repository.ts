/** GET /{id} — one repository, with the caller's role. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { getRepository } from '#core/items/repository';
import { idParams } from '#core/requests';

export const operation = {
  tag: 'Repositories',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.repository } }) },
  summary: 'Get a repository',
  params: idParams,
  success: { status: 200, description: 'The repository, with your role in it.', body: 'Repository', etag: true },
  errors: { 'not-found': notVisible('repository') },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params }) => getRepository(caller, params.id));
