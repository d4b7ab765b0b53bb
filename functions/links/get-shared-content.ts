/** GET /s/{token}/content — a share link's document's content, current version (public: no token). */
import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { openLink } from '#core/items/link';
import { tokenParams } from '#core/requests';
import { contentAnswer } from '#core/use-cases/content';
import { linkPassword, withLinkHeaders } from './public';

export const operation = {
  tag: 'Links',
  access: 'public',
  example: { request: (s) => ({ params: { token: s.linkToken } }) },
  summary: "Get a share link's content",
  description:
    'As `GET /document/{id}/content`, always the current version: inline text is 200 with its bytes; a file is 302 to ' +
    "a presigned URL of the bucket (at most 15 minutes, honours `Range`). Either way as an attachment with the document's " +
    'name, `nosniff` and `sandbox`. The same checks as `GET /s/{token}`, in the same order.',
  params: tokenParams,
  linkAnswers: true,
  success: {
    status: 200,
    description: "The content's bytes (inline text), with the document's `contentType`.",
    redirect: "A file: `Location` is a presigned URL of the bucket that answers with the file's bytes.",
  },
  errors: {
    'not-found': 'No such link: unknown, revoked, expired, or its document is in the trash or gone.',
    'link-password-required': 'The link has a password and `Link-Password` was not sent (`WWW-Authenticate: Link-Password`).',
    'link-password-wrong': 'The `Link-Password` is wrong (`WWW-Authenticate: Link-Password`).',
  },
} as const satisfies Operation;

export const handler = withLinkHeaders(
  endpoint(operation, async ({ params, headers }) => {
    const { document, objectKey } = await openLink(params.token, linkPassword(headers), { content: true });
    return contentAnswer({ ...document, ...(document.storage === 'file' ? { objectKey } : {}) });
  }),
);
