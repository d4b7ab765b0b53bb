/**
 * Who is signed in and the one typed client the app calls the API through (lib/client: openapi-fetch
 * over the types generated from openapi.json, so a contract change breaks this app's typecheck).
 * The access token lives in memory only. Locally the development sign-in keeps the user name in
 * sessionStorage, so a reload signs the same person in again.
 */
import { signal } from '@preact/signals';
import { createDocumentsClient, type DocumentsClient } from '../../lib/client/index';

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
  api = createDocumentsClient(base, { token: () => token ?? '' });
  anonymous = createDocumentsClient(base);
  const remembered = sessionStorage.getItem(USER_KEY);
  if (remembered) await signIn(remembered).catch(() => sessionStorage.removeItem(USER_KEY));
}

export async function signIn(name: string): Promise<void> {
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
}

/** The bearer token, for the few requests outside the typed client (raw bytes of a preview). */
export const bearer = () => `Bearer ${token ?? ''}`;
export const apiUrl = (path: string) => new URL(config.apiBase.replace(/\/?$/, '/') + path.replace(/^\//, ''), location.origin).href;
