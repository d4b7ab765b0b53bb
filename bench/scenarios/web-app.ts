/**
 * The web app in Debian's Chromium (headless, playwright-core) through the local stack, signed in
 * as the fixture's user by the development sign-in:
 * - a folder of 1,000 documents: from navigation to the first page of rows drawn, and to all of
 *   them loaded (10 pages of 100 read in turn), read in the page (`performance.now()` counts
 *   from the navigation's start); BENCH_WEB_RUNS rounds (default 5) after a warm-up, medians;
 * - a folder of 10,000: loaded, then its list scrolled top to bottom in 100 steps, each step's
 *   frame timed (scrollTop set until the frame after it was painted: two animation frames), and
 *   the most rows the DOM ever held;
 * - the upload panel against the CLI (lib/files-client `uploadFile`, what `npm run upload` runs)
 *   on one file of BENCH_WEB_UPLOAD_MIB MiB (default 1,024) on disk, end to end (picked until the
 *   Document), BENCH_WEB_UPLOAD_RUNS rounds (default 2), the sides taking turns first.
 */
import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createFilesApi, expectData, type FilesApi } from '#lib/files-client/api';
import { uploadFile } from '#lib/files-client/upload';
import { ensureWebBuild } from '#lib/local/web-app';
import { median, quantile, round, sleep } from '../load';
import { f } from '../markdown';
import type { WebAppResult } from '../results';
import type { Bench, Scenario } from '../scenario';

const MiB = 1024 * 1024;
const LOADED = 1_000;
const SCROLLED = 10_000;
const SCROLL_STEPS = 100;

async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  });
}

/** A page of the app signed in as `user` (the development sign-in, from the name kept for the session). */
async function signedIn(browser: Browser, url: string, user: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 900 } });
  await context.addInitScript((name) => (globalThis as any).sessionStorage.setItem('documents.user', name), user);
  return context.newPage();
}

/** Navigation to the folder: ms (from the navigation's start) until rows are drawn, and until all `count` are loaded. */
async function openFolder(page: Page, path: string, count: number): Promise<{ firstRowsMs: number; allMs: number }> {
  await page.goto(path, { waitUntil: 'commit' });
  const firstRowsMs = await page.waitForFunction(
    () => {
      const d = (globalThis as any).document;
      return d.querySelector('[role=listbox] [role=option]') ? performance.now() : 0;
    },
    undefined,
    { polling: 'raf', timeout: 120_000 },
  );
  const allMs = await page.waitForFunction(
    (n) => {
      const label = (globalThis as any).document.querySelector('[role=listbox]')?.getAttribute('aria-label') ?? '';
      return label.endsWith(`: ${n} items`) ? performance.now() : 0;
    },
    count,
    { polling: 'raf', timeout: 300_000 },
  );
  return { firstRowsMs: (await firstRowsMs.jsonValue()) as number, allMs: (await allMs.jsonValue()) as number };
}

/** The list scrolled top to bottom in `steps`: each step's frame (ms), and the most rows the DOM held. */
function scrollThrough(page: Page, steps: number): Promise<{ frames: number[]; maxRows: number }> {
  return page.evaluate(async (steps) => {
    const d = (globalThis as any).document;
    const list = d.querySelector('[role=listbox]');
    // No named function in here: tsx (esbuild keepNames) would wrap it in a `__name` the page lacks.
    const raf = (globalThis as any).requestAnimationFrame;
    const frames: number[] = [];
    let maxRows = 0;
    for (let i = 1; i <= steps; i++) {
      const started = performance.now();
      list.scrollTop = ((list.scrollHeight - list.clientHeight) * i) / steps;
      await new Promise((resolve) => raf(resolve));
      await new Promise((resolve) => raf(resolve));
      frames.push(performance.now() - started);
      maxRows = Math.max(maxRows, list.querySelectorAll('[role=option]').length);
    }
    return { frames, maxRows };
  }, steps);
}

/** `count` documents in the folder, a thousand at a time; a thousand that DynamoDB Local timed out on (a busy machine) is made again. */
async function seedFolder(bench: Bench, folderId: string, count: number): Promise<void> {
  for (let done = 0; done < count; done += 1000) {
    for (let attempt = 1; ; attempt++) {
      try {
        await bench.service.seed(Math.min(1000, count - done), folderId);
        break;
      } catch (error) {
        if (attempt >= 5) throw error;
        bench.log(`  seeding again after: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
        await sleep(2_000);
      }
    }
  }
}

async function countDocuments(api: FilesApi, id: string): Promise<number> {
  let count = 0;
  let nextToken: string | undefined;
  do {
    const query = { limit: 100, ...(nextToken ? { nextToken } : {}) };
    const page = expectData('GET /folder/{id}/documents', await api.GET('/folder/{id}/documents', { params: { path: { id }, query } }));
    count += page.items.length;
    nextToken = page.nextToken;
  } while (nextToken);
  return count;
}

/** A file of `mib` random MiB (each MiB stamped with its index, so no two are alike), written in MiB blocks. */
async function writeFile(path: string, mib: number): Promise<void> {
  const block = randomBytes(MiB);
  const file = await open(path, 'w');
  try {
    for (let i = 0; i < mib; i++) {
      block.writeDoubleBE(i, 0);
      await file.write(block);
    }
  } finally {
    await file.close();
  }
}

async function uploads(bench: Bench, browser: Browser, newFolder: (name: string) => Promise<string>): Promise<WebAppResult['upload']> {
  const mib = Number(process.env.BENCH_WEB_UPLOAD_MIB ?? 1024);
  const runs = Number(process.env.BENCH_WEB_UPLOAD_RUNS ?? 2);
  const size = mib * MiB;
  const path = join(bench.scratch, 'web-upload.bin');
  await writeFile(path, mib);
  const api = createFilesApi(bench.target.url, bench.target.token);
  const page = await signedIn(browser, bench.target.url, bench.fixture.caller.userId);
  const rounds: { app: number; cli: number }[] = [];
  try {
    for (let round = 0; round < runs; round++) {
      // A folder of its own each round: the app's pick of the same file meets no name clash.
      const folderId = await newFolder(`Web uploads ${round}`);
      await page.goto(`/app/repo/${bench.fixture.repositoryId}/folder/${folderId}`);
      await page.getByText('This folder is empty').waitFor();
      const row = { app: 0, cli: 0 };
      const sides = {
        app: async () => {
          const started = performance.now();
          await page.getByLabel('Upload files').setInputFiles(path);
          await page.locator('.upload-panel .status[data-status=done]').waitFor({ timeout: 1_800_000 });
          row.app = size / ((performance.now() - started) / 1000) / 1e6;
        },
        cli: async () => {
          const started = performance.now();
          await uploadFile({ api, file: path, target: { folderId, name: 'cli.bin' }, output: { write: () => true } });
          row.cli = size / ((performance.now() - started) / 1000) / 1e6;
        },
      };
      for (const side of round % 2 === 0 ? (['app', 'cli'] as const) : (['cli', 'app'] as const)) await sides[side]();
      rounds.push(row);
      bench.log(`  upload round ${round + 1}: app ${f(row.app, 0)} MB/s, CLI ${f(row.cli, 0)} MB/s`);
    }
  } finally {
    await page.context().close();
    await rm(path, { force: true });
  }
  return {
    mib,
    rounds,
    app: round(median(rounds.map((r) => r.app)), 1),
    cli: round(median(rounds.map((r) => r.cli)), 1),
    ratio: round(median(rounds.map((r) => r.app / r.cli)), 3),
  };
}

export const webApp: Scenario = {
  name: 'web-app',
  title: `web app in Chromium: a folder of ${LOADED} rendered, one of ${SCROLLED} scrolled, the upload panel against the CLI`,
  async run(bench) {
    const { service, target, fixture, log } = bench;
    await ensureWebBuild(log);
    const runs = Number(process.env.BENCH_WEB_RUNS ?? 5);
    const api = createFilesApi(target.url, target.token);
    const root = expectData('GET /{id}/folder', await api.GET('/{id}/folder', { params: { path: { id: fixture.repositoryId } } }));
    const folder = async (name: string) =>
      expectData('POST /folder', await api.POST('/folder', { body: { parentId: root.id, name: `${name} ${Date.now()}` } })).id;
    const [loaded, scrolled] = [await folder('Web 1000'), await folder('Web 10000')];
    const started = performance.now();
    await seedFolder(bench, loaded, LOADED);
    await seedFolder(bench, scrolled, SCROLLED);
    // The worker numbers and indexes what was seeded; on a busy machine it may not be done in
    // minutes: then it goes on during the measurements, which the log says.
    await service
      .settled(Number(process.env.BENCH_WEB_SETTLE_MS ?? 600_000))
      .catch(() => log('  the worker is still busy with the seeded documents'));
    // A thousand given up on and made again may have been written in part: the folders hold what they hold.
    const [loadedCount, scrolledCount] = [await countDocuments(api, loaded), await countDocuments(api, scrolled)];
    log(`  seeded ${loadedCount} + ${scrolledCount} documents in ${f((performance.now() - started) / 1000, 1)} s`);

    const browser = await launch();
    try {
      const page = await signedIn(browser, target.url, fixture.caller.userId);
      const address = (id: string) => `/app/repo/${fixture.repositoryId}/folder/${id}`;
      await openFolder(page, address(loaded), loadedCount); // warm-up: modules loaded, caches filled
      const navigations: { firstRowsMs: number; allMs: number }[] = [];
      for (let i = 0; i < runs; i++) navigations.push(await openFolder(page, address(loaded), loadedCount));
      const big = await openFolder(page, address(scrolled), scrolledCount);
      const { frames, maxRows } = await scrollThrough(page, SCROLL_STEPS);
      await page.context().close();
      const result: WebAppResult = {
        runs,
        folder: {
          items: loadedCount,
          firstRowsMs: round(median(navigations.map((n) => n.firstRowsMs)), 0),
          allMs: round(median(navigations.map((n) => n.allMs)), 0),
          rounds: navigations.map((n) => ({ firstRowsMs: round(n.firstRowsMs, 0), allMs: round(n.allMs, 0) })),
        },
        scroll: {
          items: scrolledCount,
          loadMs: round(big.allMs, 0),
          steps: SCROLL_STEPS,
          frameP50: round(median(frames), 1),
          frameP95: round(quantile(frames, 0.95), 1),
          frameMax: round(Math.max(...frames), 1),
          maxRows,
        },
      };
      log(
        `  ${LOADED} items: first rows ${result.folder.firstRowsMs} ms, all ${result.folder.allMs} ms; ` +
          `${SCROLLED} items loaded in ${result.scroll.loadMs} ms, scroll frame p50 ${result.scroll.frameP50} ms, p95 ${result.scroll.frameP95} ms, ${maxRows} rows in the DOM`,
      );
      if (process.env.BENCH_WEB_UPLOAD_MIB !== '0') result.upload = await uploads(bench, browser, folder);
      return { webApp: result };
    } finally {
      await browser.close();
    }
  },
};
