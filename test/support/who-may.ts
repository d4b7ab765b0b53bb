/**
 * Who may call each endpoint, written down once and apart from the code under test (docs/api.md:
 * Roles and visibility, Sharing, Uploads). Each handler module declares its own `access`; the
 * role matrix (test/members/role-matrix.test.ts) and the guard (test/guard/who-may.test.ts) hold
 * those declarations, and the service's answers, to this table, so a wrong declaration cannot be
 * its own proof.
 *
 * One row per endpoint, spelt as docs/api.md's endpoint table spells it. A new endpoint needs its
 * row here: until it has one, both tests fail naming it.
 *
 * - `public`: anyone, without a token; `signed-in`: any caller with a token.
 * - `viewer`: any member (owner, editor, viewer); anyone else gets 404.
 * - `editor`: an owner or an editor; a viewer gets 403, anyone else 404.
 * - `owner`: an owner; an editor or a viewer gets 403, anyone else 404.
 * - `uploader`: only the user who began the upload; anyone else gets 404.
 */
import type { Access } from '#core/http/operation';

export const WHO_MAY: Readonly<Record<string, Access>> = {
  'GET /': 'signed-in',
  'POST /': 'signed-in',
  'GET /{id}': 'viewer',
  'PUT /{id}': 'owner',
  'DELETE /{id}': 'owner',
  'GET /{id}/folder': 'viewer',

  'GET /folder/{id}': 'viewer',
  'POST /folder': 'editor',
  'PUT /folder': 'editor',
  'DELETE /folder/{id}': 'editor',
  'GET /folder/{id}/folders': 'viewer',
  'GET /folder/{id}/documents': 'viewer',

  'GET /document/{id}': 'viewer',
  'GET /document/{id}/path': 'viewer',
  'POST /document': 'editor',
  'PUT /document': 'editor',
  'DELETE /document/{id}': 'editor',
  'GET /document/{id}/content': 'viewer',
  'PUT /document/{id}/content': 'editor',

  'POST /uploads': 'editor',
  'GET /uploads/{id}': 'uploader',
  'POST /uploads/{id}/parts': 'uploader',
  'POST /uploads/{id}/complete': 'uploader',
  'DELETE /uploads/{id}': 'uploader',

  'GET /{id}/trash': 'viewer',
  'POST /{id}/trash/{itemId}/restore': 'editor',
  'DELETE /{id}/trash/{itemId}': 'editor',
  'DELETE /{id}/trash': 'owner',

  'GET /document/{id}/revisions': 'viewer',
  'GET /document/{id}/revisions/{version}': 'viewer',
  'GET /document/{id}/revisions/{version}/content': 'viewer',
  'POST /document/{id}/revisions/{version}/restore': 'editor',

  'GET /{id}/changes': 'viewer',

  'GET /{id}/members': 'viewer',
  'PUT /{id}/members/{userId}': 'owner',
  'DELETE /{id}/members/{userId}': 'owner',

  'POST /document/{id}/links': 'editor',
  'GET /links/{linkId}': 'viewer',
  'GET /document/{id}/links': 'viewer',
  'GET /{id}/links': 'owner',
  // An editor may also revoke a link they made themselves (test/links/links.test.ts); another's is 403.
  'DELETE /links/{linkId}': 'owner',
  'GET /s/{token}': 'public',
  'GET /s/{token}/content': 'public',

  // Any signed-in user; hits only from repositories they are a member of at that moment.
  'GET /search': 'signed-in',

  'GET /openapi.json': 'public',
  'GET /docs': 'public',
  'GET /docs/{asset}': 'public',
};

/** Who may call `route`, from the table; throws naming the route when it has no row. */
export function whoMay(route: { method: string; path: string; name: string }): Access {
  const key = `${route.method} ${route.path}`;
  const access = WHO_MAY[key];
  if (access === undefined) {
    throw new Error(
      `${route.name} (${key}) has no row in test/support/who-may.ts: add who may call it (public, signed-in, viewer, editor, owner or uploader), as docs/api.md says.`,
    );
  }
  return access;
}
