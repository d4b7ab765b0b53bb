/**
 * `npm run --silent event -- "METHOD /path" [--user alice] [--body file|json] [--path-params id=d1,...]`:
 * prints an HTTP API (payload 2.0) event for that request, as `sam local generate-event apigateway
 * http-api-proxy` does but for this API, ready for `npm run invoke -- ... --event <file>` or
 * `sam local invoke -e <file>`. With --user, a token of the local issuer (DATA_DIR, default .data)
 * for that user, valid one hour: its claims as the JWT authorizer passes them, and the token itself
 * in `Authorization`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadLocalIssuer } from '#lib/local/jwt';
import { buildHttpApiEvent } from '#lib/local/sam/event';
import { TemplateError } from '#lib/local/sam/template';

const USAGE =
  'Usage: npm run --silent event -- "METHOD /path" [--user <sub>] [--body <file|json>] [--path-params name=value,...]\n' +
  '  e.g. npm run --silent event -- "GET /document/{id}" --user alice --path-params id=d1 > event.json';

try {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { user: { type: 'string' }, body: { type: 'string' }, 'path-params': { type: 'string' } },
  });
  if (positionals.length !== 1) throw new TemplateError(USAGE);
  const pathParams = Object.fromEntries(
    (values['path-params'] ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at < 1) throw new TemplateError(`--path-params takes name=value pairs, not ${JSON.stringify(pair)}.`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );
  let body = values.body;
  if (body !== undefined && !/^\s*[[{"]/.test(body) && existsSync(body)) body = readFileSync(body, 'utf8');
  const token = values.user ? await (await loadLocalIssuer(resolve(process.env.DATA_DIR || '.data'))).issueToken(values.user) : undefined;
  const event = buildHttpApiEvent({
    request: positionals[0]!,
    pathParams,
    ...(body === undefined ? {} : { body }),
    ...(token ? { token } : {}),
  });
  process.stdout.write(`${JSON.stringify(event, null, 2)}\n`);
} catch (error) {
  if (error instanceof TemplateError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`npm run event: ${(error as Error).message}`);
    process.exit(2);
  }
  throw error;
}
