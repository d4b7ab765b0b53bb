/**
 * The web app (web/) as `npm start` serves it: on the API's own origin, under `/app/`, which is
 * reserved ahead of the API's routes (no API path begins with `/app/`: test/web/serving.test.ts);
 * `/config.json` tells the app where the API is (`/` here; the deployed stack writes its own).
 * Files of the build are served as built (hashed assets immutable, index.html never cached);
 * any other `/app/...` path is an app route and gets index.html. Nothing outside `/app/` and
 * `/config.json` is touched: an API 404 stays the API's problem+json.
 *
 * The development sign-in (`POST /app/dev-sign-in`, a user name in, a token out, signed like
 * `npm run token`) exists only here: the deployed stack has Cognito's sign-in instead, and no
 * template holds this route (test/web/stack-web-app.test.ts).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
export const WEB_SOURCE_DIR = join(projectRoot, 'web');
export const WEB_BUILD_DIR = join(WEB_SOURCE_DIR, 'dist');
/** What the build was made from (a hash of web/ and the client it imports), beside the build. */
const STAMP_FILE = join(WEB_BUILD_DIR, '.source-hash');
/** The sources the app's build depends on besides web/ (the typed client, the upload protocol). */
const SHARED_SOURCES = ['lib/client', 'lib/files-client/protocol.ts', 'lib/files-client/errors.ts', 'lib/files-client/paths.ts'];

export const APP_BASE = '/app/';
/** `/app/s/{token}`: a share link's page (a token holds dots, so it looks like a file name). */
const isSharePage = (path: string) => /^\/app\/s\/[^/]+$/.test(path);

/** The runtime configuration the app reads at start: one build serves every environment. */
export interface WebConfig {
  /** The API's base URL, relative to the app's origin (`/` locally, `/api/` deployed). */
  apiBase: string;
  /** How people sign in: `development` (pick a user name; local only) or `cognito` (the /auth/* routes). */
  signIn: 'development' | 'cognito';
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.png': 'image/png',
};

/**
 * The app's own Content-Security-Policy: its scripts and styles from itself only; previews
 * are blob: URLs in a sandboxed frame; parts and downloads go straight to the bucket (`bucketOrigin`).
 */
export function contentSecurityPolicy(bucketOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' blob: data:`,
    `frame-src blob:`,
    `connect-src 'self' ${bucketOrigin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}

export interface WebAppServer {
  /** Answers the request if it is the app's (true), or leaves it to the API (false). */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

export function createWebAppServer(options: {
  bucketOrigin: string;
  /** Signs a token for a user name (the local issuer); absent: no development sign-in. */
  issueToken?: (user: string) => Promise<string>;
  buildDir?: string;
}): WebAppServer {
  const buildDir = options.buildDir ?? WEB_BUILD_DIR;
  const csp = contentSecurityPolicy(options.bucketOrigin);
  const config: WebConfig = { apiBase: '/', signIn: 'development' };
  const send = (res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer | string) => {
    res.writeHead(status, { 'x-content-type-options': 'nosniff', 'content-length': String(Buffer.byteLength(body)), ...headers });
    res.end(body);
  };
  const problem = (res: ServerResponse, status: number, title: string, detail: string) =>
    send(res, status, { 'content-type': 'application/problem+json' }, JSON.stringify({ type: `about:blank`, title, status, detail }));

  async function serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === '/config.json') {
      return send(res, 200, { 'content-type': 'application/json', 'cache-control': 'no-cache' }, JSON.stringify(config));
    }
    if (path === `${APP_BASE}dev-sign-in`) return devSignIn(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') return problem(res, 405, 'Method Not Allowed', 'The app is read with GET.');
    const file = resolve(buildDir, `.${decodeURIComponent(path.slice(APP_BASE.length - 1))}`);
    const inside = file.startsWith(`${buildDir}${sep}`) && !relative(buildDir, file).startsWith('.');
    const isAsset = inside && extname(file) !== '' && (await stat(file).catch(() => undefined))?.isFile();
    if (isAsset) {
      const hashed = relative(buildDir, file).startsWith(`assets${sep}`);
      return send(
        res,
        200,
        {
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
        },
        await readFile(file),
      );
    }
    // An app route (no file extension, or a share link's page, whose token has dots): the single page;
    // a missing file is a plain 404.
    if (extname(path) !== '' && path !== APP_BASE && !isSharePage(path)) return problem(res, 404, 'Not Found', 'No such file of the app.');
    const index = await readFile(join(buildDir, 'index.html')).catch(() => undefined);
    if (!index) return problem(res, 503, 'Service Unavailable', 'The web app is not built: `npm start` builds it.');
    return send(res, 200, { 'content-type': TYPES['.html']!, 'cache-control': 'no-cache', 'content-security-policy': csp }, index);
  }

  async function devSignIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!options.issueToken) return problem(res, 404, 'Not Found', 'Development sign-in needs the local issuer.');
    if (req.method !== 'POST') return problem(res, 405, 'Method Not Allowed', 'Sign in with POST {"user": "..."}.');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > 4096) return problem(res, 413, 'Payload Too Large', 'A user name is short.');
      chunks.push(chunk as Buffer);
    }
    let user: unknown;
    try {
      user = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { user?: unknown }).user;
    } catch {
      return problem(res, 400, 'Bad Request', 'The body must be JSON: {"user": "..."}.');
    }
    if (typeof user !== 'string' || !/^[\w.@-]{1,64}$/.test(user)) {
      return problem(res, 400, 'Bad Request', 'user: 1 to 64 letters, digits, or . _ @ -');
    }
    const token = await options.issueToken(user);
    return send(res, 200, { 'content-type': 'application/json', 'cache-control': 'no-store' }, JSON.stringify({ user, token }));
  }

  return {
    handle(req, res) {
      const path = (req.url ?? '/').split('?')[0]!;
      if (path !== '/config.json' && path !== '/app' && !path.startsWith(APP_BASE)) return false;
      if (path === '/app') {
        res.writeHead(308, { location: APP_BASE, 'content-length': '0' }).end();
        return true;
      }
      serve(req, res, path).catch((error: unknown) => {
        process.stderr.write(`web app: ${req.method} ${path} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
        if (!res.headersSent) problem(res, 500, 'Internal Server Error', 'The app could not be served.');
      });
      return true;
    },
  };
}

/** A hash of every source the build depends on: a different hash means the build is stale. */
export async function webSourceHash(): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (path: string): Promise<void> => {
    const info = await stat(path).catch(() => undefined);
    if (!info) return;
    if (info.isDirectory()) {
      if (path === WEB_BUILD_DIR || path.endsWith(`${sep}node_modules`)) return;
      for (const name of (await readdir(path)).sort()) await walk(join(path, name));
      return;
    }
    hash
      .update(relative(projectRoot, path))
      .update('\0')
      .update(await readFile(path))
      .update('\0');
  };
  await walk(WEB_SOURCE_DIR);
  for (const shared of SHARED_SOURCES) await walk(join(projectRoot, shared));
  return hash.digest('hex');
}

/** Builds the app into web/dist when that build is missing or was made from other sources; says whether it built. */
export async function ensureWebBuild(log: (line: string) => void = () => {}): Promise<boolean> {
  const wanted = await webSourceHash();
  const built = await readFile(STAMP_FILE, 'utf8').catch(() => '');
  if (built === wanted) return false;
  log('building the web app (web/ changed or was never built)...');
  await buildWebApp(WEB_BUILD_DIR);
  await writeFile(STAMP_FILE, wanted);
  return true;
}

/** One production build of web/ into `outDir`, with Vite's manifest (.vite/manifest.json). */
export async function buildWebApp(outDir: string): Promise<void> {
  const [{ build }, { default: preact }] = await Promise.all([import('vite'), import('@preact/preset-vite')]);
  await build({
    root: WEB_SOURCE_DIR,
    base: APP_BASE,
    configFile: false,
    logLevel: 'warn',
    plugins: [preact()],
    build: { outDir, emptyOutDir: true, manifest: true, target: 'es2022', sourcemap: false },
  });
}
