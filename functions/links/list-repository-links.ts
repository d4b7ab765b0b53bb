/** GET /{id}/links — every share link of a repository, newest first (owner). */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { listRepositoryLinks } from '#core/items/link';
import { idParams, pageQuery } from '#core/requests';

export const operation = {
  tag: 'Links',
  access: 'owner',
  example: { request: (s) => ({ params: { id: s.repository } }) },
  summary: "List a repository's share links",
  description:
    'Every link of every document of the repository (those of documents in the trash too: they work again if the ' +
    'document is restored), newest first, in pages, without tokens. Only an owner may list them.',
  params: idParams,
  query: pageQuery,
  success: { status: 200, description: 'A page of links, newest first.', body: 'LinkList' },
  errors: { 'not-found': notVisible('repository'), forbidden: 'You are not an owner of the repository.' },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params, query }) => listRepositoryLinks(caller, params.id, query));
