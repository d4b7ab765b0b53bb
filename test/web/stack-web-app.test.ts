/**
 * The development sign-in (lib/local/web-app.ts: a user name in, a token out) belongs to the
 * local runtime only: no deployed template has a route, function or setting for it, and no
 * function's code imports the module that serves it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { testTemplate } from '#test/support/stack';

it('no deployed template holds the development sign-in', () => {
  const synthesized = testTemplate();
  const template = JSON.stringify(synthesized.toJSON());
  expect(template).not.toMatch(/dev-sign-in/i);
  expect(template).not.toMatch(/"signIn":"development"/);
  const routes = Object.values(synthesized.findResources('AWS::ApiGatewayV2::Route')).map((r) => String(r.Properties?.RouteKey));
  expect(routes.length).toBeGreaterThan(10);
  expect(routes.filter((key) => / \/app(\/|$)/.test(key))).toEqual([]);
});

it('no function imports the local web app server', async () => {
  const root = new URL('../../functions/', import.meta.url).pathname;
  const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.ts'));
  const importing: string[] = [];
  for (const file of files) if (/lib\/local\/web-app|#lib\/local\//.test(await readFile(join(root, file), 'utf8'))) importing.push(file);
  expect(importing).toEqual([]);
});
