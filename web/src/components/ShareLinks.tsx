/**
 * "Share link" on a document (API section 14): make a link with an optional expiry and password;
 * its address is shown once (the token is only in the first answer), with a Copy button; the
 * document's links are listed (newest first) with Revoke.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../lib/client/index';
import { expectData } from '../../../lib/files-client/errors';
import { formatDate } from '../format';
import { t } from '../messages';
import { api } from '../session';
import { announce, Dialog, ErrorText } from './ui';

type Link = components['schemas']['Link'];

/** The last moment of a picked day, in the person's time zone, as the API wants it (ISO 8601 with a zone). */
const endOfDay = (day: string) => new Date(`${day}T23:59:59`).toISOString();
const dayOf = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;

export function ShareLinks(props: { documentId: string; canWrite: boolean; onClose(): void }) {
  const [links, setLinks] = useState<Link[]>([]);
  const [made, setMade] = useState<string>();
  const [error, setError] = useState<unknown>();
  const id = props.documentId;
  const load = async () =>
    setLinks(
      expectData('GET /document/{id}/links', await api.GET('/document/{id}/links', { params: { path: { id }, query: { limit: 100 } } }))
        .items,
    );
  useEffect(() => {
    load().catch(setError);
  }, []);

  const create = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const expires = data.get('expires') as string;
    const password = data.get('password') as string;
    const link = expectData(
      'POST /document/{id}/links',
      await api.POST('/document/{id}/links', {
        params: { path: { id } },
        body: { ...(expires ? { expiresAt: endOfDay(expires) } : {}), ...(password ? { password } : {}) },
      }),
    );
    form.reset();
    setMade(link.url);
    setError(undefined);
    announce(t.linkMade);
    await load();
  };
  const revoke = async (link: Link) => {
    const answer = await api.DELETE('/links/{linkId}', { params: { path: { linkId: link.id } } });
    if (!answer.response.ok) expectData('DELETE /links/{linkId}', answer);
    announce(t.linkRevoked);
    await load();
  };
  const now = new Date();
  const tomorrow = dayOf(new Date(now.getTime() + 86_400_000));
  const inAYear = dayOf(new Date(now.getTime() + 364 * 86_400_000));

  return (
    <Dialog title={t.share} onClose={props.onClose}>
      {props.canWrite && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            create(event.currentTarget).catch(setError);
          }}
        >
          <label>
            {t.linkExpires}
            <input type="date" name="expires" min={tomorrow} max={inAYear} />
          </label>
          <label>
            {t.linkPassword}
            <input type="password" name="password" minLength={8} maxLength={128} autoComplete="new-password" />
          </label>
          <button type="submit">{t.createLink}</button>
        </form>
      )}
      {made && (
        <div class="made-link">
          <label>
            {t.linkAddress}
            <input readOnly value={made} onFocus={(e) => e.currentTarget.select()} />
          </label>
          <button
            type="button"
            onClick={() =>
              navigator.clipboard.writeText(made).then(
                () => announce(t.copied),
                () => announce(t.copyByHand),
              )
            }
          >
            {t.copy}
          </button>
          <p class="note">{t.linkShownOnce}</p>
        </div>
      )}
      <h3>{t.linksOfDocument}</h3>
      {links.length === 0 ? (
        <p class="empty">{t.noLinks}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t.linkCreated}</th>
              <th scope="col">{t.linkExpires}</th>
              <th scope="col">{t.linkPassword}</th>
              <th scope="col">{t.linkLastUsed}</th>
              <th scope="col">
                <span class="visually-hidden">{t.revoke}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {links.map((link) => {
              const label = t.linkLabel(formatDate(link.createdAt), link.createdBy);
              return (
                <tr key={link.id}>
                  <td>{label}</td>
                  <td>{link.expiresAt ? formatDate(link.expiresAt) : t.never}</td>
                  <td>{link.hasPassword ? t.yes : t.no}</td>
                  <td>{link.lastUsedAt ? formatDate(link.lastUsedAt) : t.never}</td>
                  <td>
                    {props.canWrite && (
                      <button type="button" aria-label={`${t.revoke}: ${label}`} onClick={() => revoke(link).catch(setError)}>
                        {t.revoke}
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <ErrorText error={error} />
    </Dialog>
  );
}
