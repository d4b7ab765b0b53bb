/**
 * Who is signed in and the one typed client the app calls the API through (lib/client: openapi-fetch
 * over the types generated from openapi.json, so a contract change breaks this app's typecheck).
 * The access token lives in memory only. Locally the development sign-in keeps the user name in
 * sessionStorage, so a reload signs the same person in again. Deployed (`signIn: "cognito"` in
 * /config.json), the sign-in routes (functions/auth/) hold the refresh token in an HttpOnly cookie
 * the app never sees: it asks `auth/refresh` for an access token on load and before each expires.
 */
import { signal } from '@preact/signals';
import { createDocumentsClient, type DocumentsClient } from '../../lib/client/index';
import { refreshingFetch } from './refreshing-fetch';

export interface WebConfig {
  apiBase: string;
  signIn: 'development' | 'cognito';
}

export const user = signal<string | undefined>(undefined);
let token: string | undefined;
let config: WebConfig = { apiBase: '/', signIn: 'development' };
export let api: DocumentsClient = createDocumentsClient(location.origin);
/** The same client without credentials: the public routes of share links (`/s/{token}`) need none. */
let anonymous: DocumentsClient = createDocumentsClient(location.origin);
export const publicApi = () => anonymous;

const USER_KEY = 'documents.user';

export async function loadSession(): Promise<void> {
  const answer = await fetch('/config.json', { cache: 'no-cache' });
  if (answer.ok) config = (await answer.json()) as WebConfig;
  const base = new URL(config.apiBase, location.origin).href.replace(/\/+$/, '');
  api = createDocumentsClient(base, {
    token: () => token ?? '',
    // With the managed sign-in, a 401 refreshes the access token once and sends the request again.
    ...(config.signIn === 'cognito' ? { fetch: refreshingFetch({ send: (request) => fetch(request), refresh: refreshToken }) } : {}),
  });
  anonymous = createDocumentsClient(base);
  if (config.signIn === 'cognito') return refresh();
  const remembered = sessionStorage.getItem(USER_KEY);
  if (remembered) await signIn(remembered).catch(() => sessionStorage.removeItem(USER_KEY));
}

/** Whether the sign-in screen asks for a user name (development) or sends the browser to the managed login. */
export const signInMode = () => config.signIn;

let refreshTimer: ReturnType<typeof setTimeout> | undefined;

/** The access token `refresh` leaves in memory, for the client's retry after a 401. */
const refreshToken = async (): Promise<string | undefined> => {
  await refresh();
  return token;
};

/** A fresh access token from the session cookie (401: nobody is signed in), and the next refresh a minute before it expires. */
async function refresh(): Promise<void> {
  const answer = await fetch(apiUrl('auth/refresh'), { method: 'POST', credentials: 'same-origin' });
  if (!answer.ok) {
    token = undefined;
    user.value = undefined;
    return;
  }
  const body = (await answer.json()) as { accessToken: string; expiresIn: number; user: string };
  token = body.accessToken;
  user.value = body.user;
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => void refresh(), Math.max(10, body.expiresIn - 60) * 1000);
}

export async function signIn(name: string): Promise<void> {
  if (config.signIn === 'cognito') {
    location.assign(apiUrl('auth/login'));
    return;
  }
  const answer = await fetch('/app/dev-sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: name }),
  });
  if (!answer.ok) throw new Error(((await answer.json().catch(() => ({}))) as { detail?: string }).detail ?? String(answer.status));
  const body = (await answer.json()) as { user: string; token: string };
  token = body.token;
  sessionStorage.setItem(USER_KEY, body.user);
  user.value = body.user;
}

export function signOut(): void {
  token = undefined;
  sessionStorage.removeItem(USER_KEY);
  user.value = undefined;
  clearTimeout(refreshTimer);
  if (config.signIn === 'cognito') location.assign(apiUrl('auth/logout'));
}

/** The bearer token, for the few requests outside the typed client (raw bytes of a preview). */
export const bearer = () => `Bearer ${token ?? ''}`;
export const apiUrl = (path: string) => new URL(config.apiBase.replace(/\/?$/, '/') + path.replace(/^\//, ''), location.origin).href;
