/** GET /s/{token}/content — a share link's document's content, current version (public: no token). */
import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { openLink } from '#core/items/link';
import { tokenParams } from '#core/requests';
import { contentAnswer } from '#core/use-cases/content';
import { linkPassword, OPEN_LINK_ERRORS, withLinkHeaders } from './public';

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
  errors: OPEN_LINK_ERRORS,
} as const satisfies Operation;

export const handler = withLinkHeaders(
  endpoint(operation, async ({ params, headers }) => {
    const { document, objectKey } = await openLink(params.token, linkPassword(headers), { content: true });
    return contentAnswer({ ...document, ...(document.storage === 'file' ? { objectKey } : {}) });
  }),
);
