/**
 * The web app (web/) as people use it: served by the local service at /app/, driven in Debian's
 * Chromium by playwright-core, each screen checked by axe-core (no serious or critical
 * violation of WCAG 2.2 A/AA). The journeys: sign in, repositories and folders, uploads (a name
 * clash, and a 50 MB file that loses the network and resumes), the editor's conflict view
 * between two browsers, a change in one browser appearing in the other, a viewer without write
 * controls, keyboard only, trash and revisions. Screenshots go to SCREENSHOT_DIR when it is set.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentsClient, type DocumentsClient } from '#lib/client/index';
import { ensureWebBuild } from '#lib/local/web-app';
import { useService } from '#test/support/fixture';

const ctx = useService();
let browser: Browser;
const contexts: BrowserContext[] = [];
/** Script errors of every page the journeys open. */
const pageErrors: string[] = [];
const screenshotDir = process.env.SCREENSHOT_DIR;

beforeAll(async () => {
  await ensureWebBuild();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

/** A browser of its own for `user`, signed in through the development sign-in (the name kept for the session). */
async function signedIn(user: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: ctx.svc.url });
  contexts.push(context);
  await context.addInitScript((name) => (globalThis as any).sessionStorage.setItem('documents.user', name), user);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${user}: ${error.message}`));
  return page;
}

async function apiOf(user: string): Promise<DocumentsClient> {
  return createDocumentsClient(ctx.svc.url, { token: await ctx.svc.issueToken(user) });
}

/** axe-core on what the page shows now: no serious or critical violation of WCAG 2.2 A/AA. */
async function expectAccessible(page: Page, screen: string) {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  const serious = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${screen}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious).toEqual([]);
  if (screenshotDir) await page.screenshot({ path: join(screenshotDir, `${screen}.png`) });
}

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

describe('serving the app beside the API', () => {
  it('serves the app at /app/ with its routes, /config.json, and leaves API 404s to the API', async () => {
    const index = await fetch(`${ctx.svc.url}/app/repo/x/folder/y`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(await index.text())![1]!;
    const asset = await fetch(`${ctx.svc.url}${script}`);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    await expect((await fetch(`${ctx.svc.url}/config.json`)).json()).resolves.toEqual({ apiBase: '/', signIn: 'development' });
    // A missing asset is a 404, not the page; an unknown API path is the API's problem+json.
    expect((await fetch(`${ctx.svc.url}/app/assets/missing.js`)).status).toBe(404);
    // A share link's page is a route although its token has dots.
    const shared = await fetch(`${ctx.svc.url}/app/s/r1abc.d1xyz.s3cr3t`);
    expect([shared.status, shared.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const api404 = await fetch(`${ctx.svc.url}/no/such/route`);
    expect(api404.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await fetch(`${ctx.svc.url}/app/../config.json`)).status).toBe(200);
    const signIn = await fetch(`${ctx.svc.url}/app/dev-sign-in`, { method: 'POST', body: JSON.stringify({ user: 'a b' }) });
    expect(signIn.status).toBe(400);
  });
});

describe('journeys', () => {
  it('signs in, creates a repository and a folder, and walks the breadcrumbs', async () => {
    const context = await browser.newContext({ baseURL: ctx.svc.url });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto('/app/');
    await expectAccessible(page, 'sign-in');
    const user = unique('alice');
    await page.getByLabel('User name').fill(user);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('No repositories yet').waitFor();
    await expectAccessible(page, 'repositories-empty');
    await page.getByRole('button', { name: 'New repository' }).click();
    await page.getByLabel('Repository name').fill('Handbook');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText('This folder is empty').waitFor();
    await expectAccessible(page, 'folder-empty');
    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByLabel('Folder name').fill('Policies');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('option', { name: /Policies/ }).dblclick();
    await page.getByRole('heading', { name: 'Policies' }).waitFor();
    const crumbs = page.getByRole('navigation', { name: 'Location' });
    // The breadcrumbs come from GET /document/{id}/path or the folder's parents, after the heading: wait for them.
    await expect.poll(() => crumbs.getByRole('link').allTextContents(), { timeout: 10_000 }).toEqual(['Repositories', 'Handbook']);
    await crumbs.getByRole('link', { name: 'Handbook' }).click();
    await page.getByRole('heading', { name: 'Handbook' }).waitFor();
    await page.getByRole('link', { name: 'Repositories' }).first().click();
    await page.getByRole('link', { name: 'Handbook' }).waitFor();
    await expectAccessible(page, 'repositories');
  });

  it('uploads files; a name clash asks, and Keep both keeps both', async () => {
    const user = unique('uploader');
    const api = await apiOf(user);
    const repo = (await api.POST('/', { body: { name: 'Uploads' } })).data!;
    const page = await signedIn(user);
    await page.goto(`/app/repo/${repo.id}`);
    await page.getByText('This folder is empty').waitFor();
    const files = [
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('first notes') },
      { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('89504e470d0a1a0a', 'hex') },
    ];
    await page.getByLabel('Upload files').setInputFiles(files);
    await page.getByRole('option', { name: /photo\.png/ }).waitFor();
    await page.getByRole('option', { name: /notes\.txt/ }).waitFor();
    await expectAccessible(page, 'upload-panel');
    await page.getByLabel('Upload files').setInputFiles([{ ...files[0]!, buffer: Buffer.from('second notes') }]);
    await page.getByRole('dialog', { name: /"notes.txt" already exists/ }).waitFor();
    await expectAccessible(page, 'upload-clash');
    await page.getByRole('button', { name: 'Keep both' }).click();
    await page.getByRole('option', { name: /notes \(2\)\.txt/ }).waitFor();
    const root = (await api.GET('/{id}/folder', { params: { path: { id: repo.id } } })).data!;
    const listed = (await api.GET('/folder/{id}/documents', { params: { path: { id: root.id } } })).data!.items.map((d) => d.name);
    expect(listed).toEqual(['notes (2).txt', 'notes.txt', 'photo.png']);
  });

  it('a 50 MB upload that loses the network mid-way resumes and sends only the missing parts', async () => {
    const user = unique('big');
    const api = await apiOf(user);
    const repo = (await api.POST('/', { body: { name: 'Big' } })).data!;
    const dir = join(tmpdir(), unique('web-upload'));
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'big.bin');
    await writeFile(file, randomBytes(50 * 1024 * 1024));
    try {
      const page = await signedIn(user);
      await page.goto(`/app/repo/${repo.id}`);
      await page.getByText('This folder is empty').waitFor();
      const bucket = new URL(ctx.svc.s3.endpoint).origin;
      const sent: number[] = [];
      let cut = false;
      // The network goes after two parts have gone through: every part PUT fails until it is back.
      await page.route(`${bucket}/**`, async (route) => {
        const request = route.request();
        if (request.method() !== 'PUT') return route.continue();
        const part = Number(new URL(request.url()).searchParams.get('partNumber'));
        if (cut || sent.length >= 2) {
          cut = true;
          return route.abort('internetdisconnected');
        }
        sent.push(part);
        return route.continue();
      });
      await page.getByLabel('Upload files').setInputFiles(file);
      const status = page.locator('.upload-panel .status');
      await expect
        .poll(() => status.getAttribute('data-status'), { timeout: 60_000 })
        .toBe('failed')
        .catch(async (error) => {
          console.log('panel:', await page.locator('.upload-panel').textContent(), sent);
          throw error;
        });
      const before = [...sent];
      await page.unroute(`${bucket}/**`);
      const resent: number[] = [];
      page.on('request', (request) => {
        if (request.method() === 'PUT' && request.url().startsWith(bucket))
          resent.push(Number(new URL(request.url()).searchParams.get('partNumber')));
      });
      await page.getByRole('button', { name: 'Retry big.bin' }).click();
      await expect.poll(() => status.getAttribute('data-status'), { timeout: 60_000 }).toBe('done');
      const upload = (await api.GET('/folder/{id}/documents', { params: { path: { id: repo.rootFolderId } } })).data!.items[0]!;
      expect(upload).toMatchObject({ name: 'big.bin', size: 50 * 1024 * 1024, storage: 'file' });
      // The parts that got through were not sent again.
      expect(before.length).toBe(2);
      for (const part of before) expect(resent).not.toContain(part);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('two browsers edit one document: the second save gets the conflict view, and Overwrite wins', async () => {
    const owner = unique('owner');
    const editor = unique('editor');
    const api = await apiOf(owner);
    const repo = (await api.POST('/', { body: { name: 'Shared' } })).data!;
    await api.PUT('/{id}/members/{userId}', { params: { path: { id: repo.id, userId: editor } }, body: { role: 'editor' } });
    const doc = (
      await api.POST('/document', { body: { folderId: repo.rootFolderId, name: 'plan.txt', content: 'v1', contentType: 'text/plain' } })
    ).data!;
    const first = await signedIn(owner);
    const second = await signedIn(editor);
    await Promise.all([first.goto(`/app/repo/${repo.id}/doc/${doc.id}`), second.goto(`/app/repo/${repo.id}/doc/${doc.id}`)]);
    await first.getByLabel('plan.txt').fill('mine from the first');
    await second.getByLabel('plan.txt').fill('mine from the second');
    await first.getByRole('button', { name: 'Save' }).click();
    await first.getByText('Version 2', { exact: false }).first().waitFor();
    await second.getByRole('button', { name: 'Save' }).click();
    await second.getByRole('heading', { name: /Someone else saved this document/ }).waitFor();
    await expectAccessible(second, 'editor-conflict');
    // The draft survives a reload (kept in this browser, not on the server).
    await second.reload();
    await expect(second.getByLabel('plan.txt').inputValue()).resolves.toBe('mine from the second');
    await second.getByRole('button', { name: 'Save' }).click();
    await second.getByRole('button', { name: 'Overwrite with mine' }).click();
    await second.getByText('Version 3', { exact: false }).first().waitFor();
    const stored = (await api.GET('/document/{id}', { params: { path: { id: doc.id } } })).data!;
    expect(stored).toMatchObject({ version: 3, content: 'mine from the second' });
    await expectAccessible(second, 'editor');
  });

  it('a change made in one browser appears in the other, without a reload', async () => {
    const owner = unique('live');
    const api = await apiOf(owner);
    const repo = (await api.POST('/', { body: { name: 'Live' } })).data!;
    const watching = await signedIn(owner);
    const acting = await signedIn(owner);
    await watching.goto(`/app/repo/${repo.id}`);
    await watching.getByText('This folder is empty').waitFor();
    await acting.goto(`/app/repo/${repo.id}`);
    await acting.getByRole('button', { name: 'New folder' }).click();
    await acting.getByLabel('Folder name').fill('Arrived');
    await acting.getByRole('button', { name: 'Create' }).click();
    await watching.getByRole('option', { name: /Arrived/ }).waitFor({ timeout: 20_000 });
  });

  it('a viewer sees no write control, and the API refuses their write', async () => {
    const owner = unique('owner');
    const viewer = unique('viewer');
    const api = await apiOf(owner);
    const repo = (await api.POST('/', { body: { name: 'Read only' } })).data!;
    await api.PUT('/{id}/members/{userId}', { params: { path: { id: repo.id, userId: viewer } }, body: { role: 'viewer' } });
    const doc = (
      await api.POST('/document', { body: { folderId: repo.rootFolderId, name: 'rules.txt', content: 'x', contentType: 'text/plain' } })
    ).data!;
    const page = await signedIn(viewer);
    await page.goto(`/app/repo/${repo.id}`);
    await page.getByRole('option', { name: /rules\.txt/ }).waitFor();
    await page.getByText('You can view this repository but not change it.').waitFor();
    for (const name of ['New folder', 'New text document', 'Rename', 'Move to…', 'Delete']) {
      await expect(page.getByRole('button', { name }).count()).resolves.toBe(0);
    }
    await expect(page.getByText('Upload files').count()).resolves.toBe(0);
    await expectAccessible(page, 'folder-viewer');
    await page.getByRole('option', { name: /rules\.txt/ }).dblclick();
    await expect(page.getByLabel('rules.txt').getAttribute('readonly')).resolves.not.toBeNull();
    await expect(page.getByRole('button', { name: 'Save' }).count()).resolves.toBe(0);
    const refused = await (await apiOf(viewer)).PUT('/document', { body: { id: doc.id, content: 'changed' } });
    expect(refused.response.status).toBe(403);
  });

  it('keyboard only: moves through a folder, opens, renames (F2), deletes (Delete) and undoes, shows the shortcuts', async () => {
    const owner = unique('keys');
    const api = await apiOf(owner);
    const repo = (await api.POST('/', { body: { name: 'Keys' } })).data!;
    for (const name of ['a.txt', 'b.txt', 'c.txt']) {
      await api.POST('/document', { body: { folderId: repo.rootFolderId, name, content: name, contentType: 'text/plain' } });
    }
    const page = await signedIn(owner);
    await page.goto(`/app/repo/${repo.id}`);
    const list = page.getByRole('listbox');
    await list.waitFor();
    // Tab until the list has focus.
    for (let i = 0; i < 30 && !(await list.evaluate((el) => el === (globalThis as any).document.activeElement)); i++)
      await page.keyboard.press('Tab');
    await expect(list.evaluate((el) => el === (globalThis as any).document.activeElement)).resolves.toBe(true);
    const active = () =>
      list.evaluate((el) => (globalThis as any).document.getElementById(el.getAttribute('aria-activedescendant') ?? '')?.textContent ?? '');
    await page.keyboard.press('End');
    await expect(active()).resolves.toMatch(/c\.txt/);
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await expect(active()).resolves.toMatch(/b\.txt/);
    await page.keyboard.press('F2');
    // The rename dialog opens with its field focused: type only once it has the focus.
    const field = page.getByRole('textbox', { name: 'New name' });
    await field.waitFor();
    await expect.poll(() => field.evaluate((el) => el === (globalThis as any).document.activeElement), { timeout: 10_000 }).toBe(true);
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('renamed.txt');
    await page.keyboard.press('Enter');
    await page
      .getByRole('option', { name: /renamed\.txt/ })
      .waitFor({ timeout: 15_000 })
      .catch(async (error) => {
        await page.screenshot({ path: '/tmp/webapp-rename.png' });
        throw error;
      });
    await list.focus();
    // The list is drawn again after the rename: Delete only once Home has made a.txt the active one.
    await expect
      .poll(
        async () => {
          await page.keyboard.press('Home');
          return active();
        },
        { timeout: 10_000 },
      )
      .toMatch(/a\.txt/);
    await page.keyboard.press('Delete');
    await page.locator('.toast').getByText('a.txt moved to the trash').waitFor();
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('option', { name: /a\.txt/ }).waitFor();
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await expectAccessible(page, 'shortcuts');
    await page.keyboard.press('Escape');
    await list.focus();
    // Home again until the restored a.txt is first: the list takes the undo in when the folder reloads.
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press('Home');
      if (/a\.txt/.test(await active())) break;
      await page.waitForTimeout(250);
    }
    await expect(active()).resolves.toMatch(/a\.txt/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'a.txt' }).waitFor();
  });

  it('trash with restore, revisions with restore, and members (add, change, remove)', async () => {
    const owner = unique('trash');
    const api = await apiOf(owner);
    const repo = (await api.POST('/', { body: { name: 'Restores' } })).data!;
    const doc = (
      await api.POST('/document', { body: { folderId: repo.rootFolderId, name: 'gone.txt', content: 'one', contentType: 'text/plain' } })
    ).data!;
    await api.PUT('/document', { body: { id: doc.id, content: 'two' } });
    const page = await signedIn(owner);
    await page.goto(`/app/repo/${repo.id}/doc/${doc.id}`);
    await page.getByRole('button', { name: 'Restore Version 1' }).click();
    await page.getByText('Version 3', { exact: false }).first().waitFor();
    await expect(page.getByLabel('gone.txt').inputValue()).resolves.toBe('one');
    await api.DELETE('/document/{id}', { params: { path: { id: doc.id } } });
    await page.goto(`/app/repo/${repo.id}/trash`);
    await expectAccessible(page, 'trash');
    await page.getByRole('button', { name: 'Restore gone.txt' }).click();
    await page.getByText('The trash is empty.').waitFor();
    await page.goto(`/app/repo/${repo.id}`);
    await page.getByRole('button', { name: 'Members' }).click();
    await page.getByText('There is no user directory yet').waitFor();
    const guest = unique('guest');
    await page.getByLabel('User id').fill(guest);
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('combobox', { name: `Role: ${guest}` }).selectOption('editor');
    await expect
      .poll(
        async () =>
          (await api.GET('/{id}/members', { params: { path: { id: repo.id } } })).data!.items.find((m) => m.userId === guest)?.role,
      )
      .toBe('editor');
    await expectAccessible(page, 'members');
    await page.getByRole('button', { name: `Remove ${guest}` }).click();
    await expect.poll(async () => (await api.GET('/{id}/members', { params: { path: { id: repo.id } } })).data!.items.length).toBe(1);
  });

  it('search: the header box finds a document just made, its snippet marked, announced; Enter opens it; nothing found says so', async () => {
    const owner = unique('finder');
    const api = await apiOf(owner);
    const repo = (await api.POST('/', { body: { name: 'Findings' } })).data!;
    const word = `zq${randomBytes(3).toString('hex')}`;
    const doc = (
      await api.POST('/document', {
        body: {
          folderId: repo.rootFolderId,
          name: 'budget-notes.txt',
          content: `Plans for the year. The ${word} figures: costs < income & <b>grew</b> in spring.`,
          contentType: 'text/plain',
        },
      })
    ).data!;
    await ctx.svc.worker.settled(); // indexed
    const page = await signedIn(owner);
    await page.goto(`/app/repo/${repo.id}`);
    const box = page.getByRole('searchbox', { name: 'Search' });
    await box.fill(word);
    await box.press('Enter');
    const result = page.getByRole('list', { name: 'Results' }).getByRole('link', { name: /budget-notes\.txt/ });
    await result.waitFor();
    // The highlight is a <mark> around plain text: the server's text is never parsed as HTML.
    await expect(page.locator('.snippet mark').allTextContents()).resolves.toEqual([word]);
    await expect(page.locator('.snippet').textContent()).resolves.toContain('costs < income');
    await expect.poll(() => page.getByRole('status').textContent()).toBe('1 result');
    await expectAccessible(page, 'search-results');
    await page.getByLabel('Kind').selectOption('folder');
    await page.locator('main').getByText(`Nothing found for "${word}".`).waitFor();
    await page.getByLabel('Kind').selectOption('document');
    await result.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'budget-notes.txt' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/app/repo/${repo.id}/doc/${doc.id}`);
  });

  it('share link: made with a password and copied once; opened without sign-in, a wrong password refused, the right one downloads; revoked, not found', async () => {
    const owner = unique('sharer');
    const api = await apiOf(owner);
    const repo = (await api.POST('/', { body: { name: 'Shares' } })).data!;
    const content = `shared words ${randomBytes(4).toString('hex')}`;
    const doc = (
      await api.POST('/document', { body: { folderId: repo.rootFolderId, name: 'handout.txt', content, contentType: 'text/plain' } })
    ).data!;
    const page = await signedIn(owner);
    await page.goto(`/app/repo/${repo.id}/doc/${doc.id}`);
    await page.getByRole('button', { name: 'Share link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share link' });
    await dialog.getByText('No share links yet.').waitFor();
    await dialog.getByLabel('Password').fill('correct horse');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const address = await dialog.getByLabel('Link address').inputValue();
    // The service points the link at the app's page for the token.
    expect(address).toMatch(new RegExp(`^${ctx.svc.url}/app/s/[A-Za-z0-9_.-]+$`));
    await dialog.getByRole('cell', { name: 'Yes' }).waitFor();
    await expectAccessible(page, 'share-link');

    // Someone else, in a browser with no sign-in at all.
    const context = await browser.newContext();
    contexts.push(context);
    const visitor = await context.newPage();
    visitor.on('pageerror', (error) => pageErrors.push(`visitor: ${error.message}`));
    await visitor.goto(address);
    await visitor.getByRole('paragraph').filter({ hasText: 'This link has a password.' }).waitFor();
    await expectAccessible(visitor, 'shared-password');
    await visitor.getByLabel('Password').fill('wrong horse');
    await visitor.getByRole('button', { name: 'Open' }).click();
    await visitor.getByRole('alert').filter({ hasText: 'That password is wrong.' }).waitFor();
    await visitor.getByLabel('Password').fill('correct horse');
    await visitor.getByRole('button', { name: 'Open' }).click();
    await visitor.getByRole('heading', { name: 'handout.txt' }).waitFor();
    await expectAccessible(visitor, 'shared-document');
    const [download] = await Promise.all([visitor.waitForEvent('download'), visitor.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('handout.txt');
    const saved = await download.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of saved) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(content);

    await dialog.getByRole('button', { name: /^Revoke: / }).click();
    await dialog.getByText('No share links yet.').waitFor();
    await visitor.reload();
    await visitor.getByRole('heading', { name: 'Link not found' }).waitFor();
  });

  it('share link with a password to a stored file: the right password downloads its bytes through the redirect to the bucket', async () => {
    const owner = unique('file-sharer');
    const api = await apiOf(owner);
    const repo = (await api.POST('/', { body: { name: 'File shares' } })).data!;
    const bytes = randomBytes(2048);
    const started = await api.POST('/uploads', { body: { folderId: repo.rootFolderId, name: 'figures.bin', size: bytes.length } });
    const upload = started.data!;
    expect((await fetch(upload.parts![0]!.url, { method: 'PUT', body: bytes })).status).toBe(200);
    const done = await api.POST('/uploads/{id}/complete', { params: { path: { id: upload.id } } });
    expect(done.data).toMatchObject({ storage: 'file', size: bytes.length });
    const link = (await api.POST('/document/{id}/links', { params: { path: { id: done.data!.id } }, body: { password: 'correct horse' } }))
      .data!;

    const context = await browser.newContext();
    contexts.push(context);
    const visitor = await context.newPage();
    visitor.on('pageerror', (error) => pageErrors.push(`file visitor: ${error.message}`));
    await visitor.goto(link.url!);
    await visitor.getByLabel('Password').fill('correct horse');
    await visitor.getByRole('button', { name: 'Open' }).click();
    await visitor.getByRole('heading', { name: 'figures.bin' }).waitFor();
    // The content route answers 302 to a presigned bucket URL; the fetch that sends Link-Password follows it
    // cross-origin, which the bucket's CORS rules must let through (a preflight for that header).
    const [download] = await Promise.all([visitor.waitForEvent('download'), visitor.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('figures.bin');
    const chunks: Buffer[] = [];
    for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('no journey met a script error', () => {
    expect(contexts.length).toBeGreaterThan(5);
    expect(pageErrors).toEqual([]);
  });
});
