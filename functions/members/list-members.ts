/** GET /{id}/members — the members of a repository, by user id (any member). */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { listMembers } from '#core/items/member';
import { idParams, pageQuery } from '#core/requests';

export const operation = {
  tag: 'Members',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.repository } }) },
  summary: "List a repository's members",
  description: 'Every member with their role, ordered by `userId` (by Unicode code point), in pages. Any member may list them.',
  params: idParams,
  query: pageQuery,
  success: { status: 200, description: 'A page of members.', body: 'MemberList' },
  errors: { 'not-found': notVisible('repository') },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params, query }) => listMembers(caller, params.id, query));
