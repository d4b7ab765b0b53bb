/**
 * A share link's page (`/app/s/{token}`, API section 14): anyone who holds the link, signed in or
 * not. It shows the document's name and size (`GET /s/{token}`), asks for the password when the
 * link has one (sent as `Link-Password`), says plainly when the link is gone (404) or locked after
 * too many wrong passwords (429), and offers the download (`GET /s/{token}/content`).
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../lib/client/index';
import { ApiError, expectData } from '../../../lib/files-client/errors';
import { announce, ErrorText } from '../components/ui';
import { formatDate, formatDuration, formatSize } from '../format';
import { t } from '../messages';
import { apiUrl, publicApi } from '../session';

type Shared = components['schemas']['SharedDocument'];
type State =
  | { name: 'loading' }
  | { name: 'open'; document: Shared; password?: string }
  | { name: 'password'; wrong: boolean }
  | { name: 'locked'; retryAfterSeconds: number }
  | { name: 'gone' }
  | { name: 'failed'; error: unknown };

export function SharedLink(props: { token: string }) {
  const [state, setState] = useState<State>({ name: 'loading' });
  const [downloading, setDownloading] = useState<unknown>();

  const open = async (password?: string) => {
    const headers = password === undefined ? {} : { 'Link-Password': password };
    const answer = await publicApi().GET('/s/{token}', { params: { path: { token: props.token } }, headers });
    const status = answer.response.status;
    let next: State;
    if (status === 404) next = { name: 'gone' };
    else if (status === 429) next = { name: 'locked', retryAfterSeconds: Number(answer.response.headers.get('retry-after')) || 0 };
    else if (status === 401) next = { name: 'password', wrong: password !== undefined };
    else {
      const document = expectData('GET /s/{token}', answer);
      window.document.title = `${document.name} – ${t.appName}`;
      next = { name: 'open', document, ...(password === undefined ? {} : { password }) };
    }
    setState(next);
    announce(messageOf(next));
  };
  useEffect(() => {
    window.document.title = `${t.sharedTitle} – ${t.appName}`;
    open().catch((error) => setState({ name: 'failed', error }));
  }, [props.token]);

  const contentUrl = apiUrl(`/s/${encodeURIComponent(props.token)}/content`);
  /** With a password the bytes are fetched with the header (a plain link cannot carry one), then saved. */
  const download = async (document: Shared, password: string) => {
    const answer = await fetch(contentUrl, { headers: { 'Link-Password': password } });
    if (!answer.ok) throw new ApiError('GET /s/{token}/content', answer.status, await answer.json().catch(() => undefined));
    const url = URL.createObjectURL(await answer.blob());
    const anchor = Object.assign(window.document.createElement('a'), { href: url, download: document.name });
    anchor.click();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  };

  return (
    <main id="main" class="shared">
      {state.name === 'loading' && <p>{t.loading}</p>}
      {state.name === 'gone' && (
        <>
          <h1>{t.sharedGoneTitle}</h1>
          <p>{t.sharedGone}</p>
        </>
      )}
      {state.name === 'locked' && (
        <>
          <h1>{t.sharedTitle}</h1>
          <p role="alert" class="error">
            {messageOf(state)}
          </p>
        </>
      )}
      {state.name === 'failed' && <ErrorText error={state.error} />}
      {state.name === 'password' && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const password = new FormData(event.currentTarget).get('password') as string;
            open(password).catch((error) => setState({ name: 'failed', error }));
          }}
        >
          <h1>{t.sharedTitle}</h1>
          <p>{t.sharedNeedsPassword}</p>
          {state.wrong && (
            <p role="alert" class="error">
              {t.wrongPassword}
            </p>
          )}
          <label>
            {t.linkPassword}
            <input type="password" name="password" required autoComplete="off" />
          </label>
          <button type="submit">{t.open}</button>
        </form>
      )}
      {state.name === 'open' && (
        <>
          <h1>{state.document.name}</h1>
          <p class="muted">
            {formatSize(state.document.size)} · {formatDate(state.document.updatedAt)}
          </p>
          {state.password === undefined ? (
            <a class="button" href={contentUrl} download={state.document.name}>
              {t.download}
            </a>
          ) : (
            <button
              type="button"
              onClick={() => {
                setDownloading(undefined);
                download(state.document, state.password!).catch(setDownloading);
              }}
            >
              {t.download}
            </button>
          )}
          <ErrorText error={downloading} />
        </>
      )}
    </main>
  );
}

function messageOf(state: State): string {
  switch (state.name) {
    case 'gone':
      return t.sharedGone;
    case 'locked':
      return t.sharedLocked(formatDuration(state.retryAfterSeconds));
    case 'password':
      return state.wrong ? t.wrongPassword : t.sharedNeedsPassword;
    case 'open':
      return state.document.name;
    default:
      return '';
  }
}
