/** GET /s/{token} — what a share link shows of its document (public: no token). */
import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { openLink } from '#core/items/link';
import { tokenParams } from '#core/requests';
import { linkPassword, OPEN_LINK_ERRORS, withLinkHeaders } from './public';

export const operation = {
  tag: 'Links',
  access: 'public',
  example: { request: (s) => ({ params: { token: s.linkToken } }) },
  summary: 'Open a share link',
  description:
    "The document's `name`, `contentType`, `size`, `sha256`, `version` and `updatedAt`; never ids, members or folders. " +
    'No `Authorization` needed (one that is sent is ignored). A link with a password needs `Link-Password`. ' +
    'Checks go in this order: unknown, revoked, expired or its document in the trash (404, all alike); locked after ' +
    '10 wrong passwords in 15 minutes (429 with `Retry-After`); the password (401).',
  params: tokenParams,
  linkAnswers: true,
  success: { status: 200, description: 'The shared document.', body: 'SharedDocument' },
  errors: OPEN_LINK_ERRORS,
} as const satisfies Operation;

export const handler = withLinkHeaders(
  endpoint(operation, async ({ params, headers }) => {
    const { document } = await openLink(params.token, linkPassword(headers), { content: false });
    const { name, contentType, size, sha256, version, updatedAt } = document;
    return { name, contentType, size, sha256, version, updatedAt };
  }),
);
