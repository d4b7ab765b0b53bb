/** POST / — a repository with its root folder; the caller becomes its owner. */
import { endpoint } from '#core/http/endpoint';
import { created } from '#core/http/responses';
import { createRepositoryBody } from '#core/schemas';
import { createRepository } from '#core/store/repositories';

export const handler = endpoint({ body: createRepositoryBody }, async ({ caller, body }) => {
  const repository = await createRepository(caller, body);
  return created(`/${repository.id}`, repository);
});
