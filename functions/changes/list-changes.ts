/** GET /{id}/changes — a repository's change feed after a cursor. */
import { endpoint } from '#core/http/endpoint';
import { notVisible, type Operation } from '#core/http/operation';
import { readChanges } from '#core/items/change';
import { changesQuery, idParams } from '#core/requests';

export const operation = {
  tag: 'Changes',
  access: 'viewer',
  example: { request: (s) => ({ params: { id: s.repository }, query: { cursor: 'latest' } }) },
  summary: "Follow a repository's changes",
  description:
    'The changes after `cursor`, oldest first, and the cursor to ask with next. Start with `cursor=latest`: an empty ' +
    'page and a cursor from which every change committed after this request is seen exactly once (a change committed ' +
    'just before it may also show). A page with no items still carries a cursor; a cursor can be used again.',
  params: idParams,
  query: changesQuery,
  success: { status: 200, description: 'The changes after the cursor (maybe none), and the next cursor.', body: 'ChangesPage' },
  errors: {
    'not-found': notVisible('repository'),
    'cursor-expired': 'The feed no longer keeps the changes after this cursor (it keeps 30 days): start again from `latest`.',
  },
} as const satisfies Operation;

export const handler = endpoint(operation, ({ caller, params, query }) => readChanges(caller, params.id, query));
