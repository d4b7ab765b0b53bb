/**
 * The API's reference, served by the service itself: public (no token), from the committed
 * openapi.json and the project's own swagger-ui-dist, and nothing else from the disk.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { referenceAssetFiles } from '#functions/routes';
import { useService } from '#test/support/fixture';
import { Api, expectProblem } from '#test/support/http';

const ctx = useService({ seed: async (svc) => ({ anonymous: new Api(svc.url) }) });

const assetFiles = referenceAssetFiles;

describe('the API reference', () => {
  it('serves the committed openapi.json without a token, to anyone', async () => {
    const committed = JSON.parse(await readFile(new URL('../../openapi.json', import.meta.url), 'utf8'));
    for (const api of [ctx.anonymous, ctx.anonymous.withToken('not-a-jwt')]) {
      const res = await Api.from('GET /openapi.json', api.client.GET('/openapi.json'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(committed);
    }
  });

  it('serves a page that loads Swagger UI and openapi.json from this service only', async () => {
    const res = await ctx.anonymous.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const urls = [...(res.text as string).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls).toEqual(['data:,', 'docs/swagger-ui.css', 'docs/swagger-ui-bundle.js', 'docs/init.js']);
  });

  it('serves each asset the route table lists, as the file it is', async () => {
    for (const file of assetFiles) {
      const name = file.slice(file.lastIndexOf('/') + 1);
      const res = await ctx.anonymous.get(`/docs/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.text, name).toBe(await readFile(new URL(`../../${file}`, import.meta.url), 'utf8'));
    }
    const init = await ctx.anonymous.get('/docs/init.js');
    expect(init.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(init.text).toContain("url: 'openapi.json'");
  });

  it('serves nothing else: other files of swagger-ui-dist, paths out of it, unknown names are 404', async () => {
    for (const name of [
      'swagger-ui.js',
      'index.html',
      'package.json',
      '..%2F..%2Fpackage.json',
      '%2Fetc%2Fpasswd',
      'init.js.map',
      'INIT.JS',
    ]) {
      expectProblem(await ctx.anonymous.get(`/docs/${name}`), 404);
    }
  });

  it('answers other methods with 405', async () => {
    const res = await ctx.anonymous.request('POST', '/docs', { json: {} });
    expectProblem(res, 405);
    // GET is the page; PUT and DELETE are those of /{id} (a repository id "docs": 404 there).
    expect(res.headers.get('allow')).toBe('DELETE, GET, PUT');
  });
});
