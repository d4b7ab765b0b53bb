/** GET / — the repositories the caller is a member of. */
import { endpoint } from '#core/http/endpoint';
import { ok } from '#core/http/responses';
import { pageQuery } from '#core/schemas';
import { listRepositories } from '#core/store/repositories';

export const handler = endpoint({ query: pageQuery }, async ({ caller, query }) => ok(await listRepositories(caller, query)));
