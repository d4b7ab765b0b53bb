/**
 * The reference page as a person sees it: /docs opened in headless Chromium (Debian's
 * `chromium`, driven by playwright-core; .ci/run installs it). Swagger UI must render every
 * route of the route table, from the service's own files only (no CDN), with no script error
 * and nothing its Content-Security-Policy blocks.
 */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes';
import { assertKeepsContract } from '#test/support/contract';
import { useService } from '#test/support/fixture';

const ctx = useService();
let browser: Browser;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('GET /docs in a browser', () => {
  it('lists every endpoint of the route table, loaded from this service alone', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const origins = new Set<string>();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      if (!request.url().startsWith('data:')) origins.add(new URL(request.url()).origin);
    });
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
    const checked: Promise<void>[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
      // What the browser got keeps the contract too.
      const { pathname } = new URL(response.url());
      checked.push(
        Promise.all([response.allHeaders(), response.text()]).then(([headers, body]) =>
          assertKeepsContract({
            method: response.request().method(),
            path: pathname,
            status: response.status(),
            headers: new Headers(headers),
            body,
          }),
        ),
      );
    });

    await page.goto(`${ctx.svc.url}/docs`);
    await expect(page.title()).resolves.toBe('Documents service API');
    const operations = page.locator('.opblock .opblock-summary');
    // Rendered once the document has loaded: one block per operation.
    await operations.nth(routes.length - 1).waitFor({ timeout: 20_000 });

    const listed = await operations.evaluateAll((blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
        const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method} ${path}`;
      }),
    );
    expect(listed.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
    // A summary a person can read next to each (from the document).
    await expect(page.locator('.opblock-summary-description').count()).resolves.toBe(routes.length);
    await expect(page.locator('.info .title').first().textContent()).resolves.toMatch(/^Documents service API/);

    if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: true });
    expect(problems).toEqual([]);
    expect([...origins]).toEqual([ctx.svc.url]);
    await Promise.all(checked);
    // The page, its style sheet and two scripts, and the OpenAPI document.
    expect(checked.length).toBeGreaterThanOrEqual(5);
    await page.close();
  }, 60_000);
});
