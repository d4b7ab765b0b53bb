/** GET /links/{linkId} — a share link (any member of its repository). */
import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { getLink } from '#core/items/link';
import { linkParams } from '#core/requests';

export const operation = {
  tag: 'Links',
  access: 'viewer',
  example: { request: (s) => ({ params: { linkId: s.link } }) },
  summary: 'Get a share link',
  description: 'The link, without its token (the service does not keep it). A revoked link is 404.',
  params: linkParams,
  success: { status: 200, description: 'The link.', body: 'Link' },
  errors: { 'not-found': 'No such link (or it was revoked), or you are not a member of its repository.' },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params }) => getLink(caller, params.linkId));
