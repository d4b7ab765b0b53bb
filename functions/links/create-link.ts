/** POST /document/{id}/links — a share link of a document (owner, editor); its token is in this answer only. */
import type { Operation } from '#core/http/operation';
import { notVisible, readOnly } from '#core/http/operation';
import { writeEndpoint } from '#core/http/write-endpoint';
import { createLink } from '#core/items/link';
import { createLinkBody, idParams } from '#core/requests';

export const operation = {
  tag: 'Links',
  access: 'editor',
  example: { request: (s) => ({ params: { id: s.document }, body: {} }) },
  summary: 'Make a share link',
  description:
    'Anyone who holds the link reads the document (`GET /s/{token}`, `GET /s/{token}/content`) without an account, until ' +
    '`expiresAt` (at most one year ahead) or until it is revoked. `token` and `url` are in this answer only: the service ' +
    'keeps only a hash of the token, and a repeat with the same `Idempotency-Key` answers the same link without them. ' +
    'A `password` (8–128 characters) is then needed in the `Link-Password` header.',
  params: idParams,
  body: createLinkBody,
  bodyOptional: true,
  success: { status: 201, description: 'The link, with its `token` and `url`.', body: 'Link', location: '/links/{id}' },
  errors: { 'not-found': notVisible('document'), forbidden: readOnly },
} as const satisfies Operation;

/**
 * Where a person opens the link (`{base}/s/{token}`): the web app's page when the app's address is
 * configured (WEB_APP_URL, e.g. `http://127.0.0.1:3000/app` under `npm start`), else this
 * service's own public route, as the request reached it.
 */
const baseUrl = (headers: Record<string, string | undefined>) =>
  process.env.WEB_APP_URL?.replace(/\/+$/, '') || `${headers['x-forwarded-proto'] ?? 'https'}://${headers.host ?? 'localhost'}`;

export const handler = writeEndpoint(
  operation,
  ({ caller, params, body, headers }) => createLink(caller, params.id, body, baseUrl(headers)),
  { secretFields: ['token', 'url'] },
);
