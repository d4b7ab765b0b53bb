/**
 * Search results (API section 13, `GET /search` through the typed client): best first, a page at
 * a time ("More results"), filtered by kind and repository; each hit a link (Enter opens it), its
 * snippet's highlights as <mark> around plain text. How many were found is announced.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { paths, Repository } from '../../../lib/client/index';
import { expectData } from '../../../lib/files-client/errors';
import { announce, ErrorText } from '../components/ui';
import { formatDate, formatSize } from '../format';
import { highlightPieces } from '../highlight';
import { t } from '../messages';
import { href, navigate, type SearchFilters } from '../router';
import { api } from '../session';

const PAGE = 20;
const searchPage = async (query: paths['/search']['get']['parameters']['query']) =>
  expectData('GET /search', await api.GET('/search', { params: { query } }));
type Hit = Awaited<ReturnType<typeof searchPage>>['items'][number];

export function Search(props: { q: string } & SearchFilters) {
  const [hits, setHits] = useState<Hit[] | undefined>();
  const [nextToken, setNextToken] = useState<string>();
  const [repositories, setRepositories] = useState<Repository[]>([]);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const generation = useRef(0);
  const filters: SearchFilters = { kind: props.kind, repositoryId: props.repositoryId };

  const read = async (from?: string) => {
    const mine = ++generation.current;
    setBusy(true);
    try {
      const query = {
        q: props.q,
        limit: PAGE,
        ...(props.kind ? { kind: props.kind } : {}),
        ...(props.repositoryId ? { repositoryId: props.repositoryId } : {}),
        ...(from ? { nextToken: from } : {}),
      };
      const page = await searchPage(query);
      if (mine !== generation.current) return;
      const all = [...(from ? (hits ?? []) : []), ...page.items];
      setHits(all);
      setNextToken(page.nextToken);
      setError(undefined);
      announce(all.length === 0 ? t.noResults(props.q) : t.resultsCount(all.length, Boolean(page.nextToken)));
    } catch (e) {
      if (mine === generation.current) setError(e);
    } finally {
      if (mine === generation.current) setBusy(false);
    }
  };

  useEffect(() => {
    document.title = `${t.searchTitle(props.q)} – ${t.appName}`;
    setHits(undefined);
    if (props.q) void read();
  }, [props.q, props.kind, props.repositoryId]);
  useEffect(() => {
    api
      .GET('/', { params: { query: { limit: 100 } } })
      .then((answer) => setRepositories(expectData('GET /', answer).items))
      .catch(() => {});
  }, []);

  const refine = (change: SearchFilters) => navigate(href.search(props.q, { ...filters, ...change }));
  const repositoryName = (id: string) => repositories.find((r) => r.id === id)?.name ?? '';

  return (
    <main id="main" class="search">
      <h1>{t.searchTitle(props.q)}</h1>
      <div class="filters">
        <label>
          {t.searchKind}
          <select
            value={props.kind ?? ''}
            onChange={(e) => refine({ kind: (e.currentTarget.value || undefined) as SearchFilters['kind'] })}
          >
            <option value="">{t.searchAnyKind}</option>
            <option value="document">{t.searchDocuments}</option>
            <option value="folder">{t.searchFolders}</option>
          </select>
        </label>
        <label>
          {t.searchRepository}
          <select value={props.repositoryId ?? ''} onChange={(e) => refine({ repositoryId: e.currentTarget.value || undefined })}>
            <option value="">{t.searchEveryRepository}</option>
            {repositories.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorText error={error} />
      {!props.q ? (
        <p class="empty">{t.searchHint}</p>
      ) : hits === undefined ? (
        !error && <p>{t.loading}</p>
      ) : hits.length === 0 ? (
        <p class="empty">{t.noResults(props.q)}</p>
      ) : (
        <ol class="results" aria-label={t.searchResults}>
          {hits.map((hit) => (
            <li key={`${hit.kind}:${hit.id}`}>
              <a href={hit.kind === 'folder' ? href.folder(hit.repositoryId, hit.id) : href.document(hit.repositoryId, hit.id)}>
                <span aria-hidden="true">{hit.kind === 'folder' ? '📁 ' : '📄 '}</span>
                {hit.name}
              </a>
              <p class="muted">
                {[
                  hit.kind === 'folder' ? t.folder : hit.size !== undefined ? formatSize(hit.size) : '',
                  repositoryName(hit.repositoryId),
                  formatDate(hit.updatedAt),
                  t.matchedIn[hit.matched],
                ]
                  .filter(Boolean)
                  .join(' · ')}
              </p>
              {hit.snippet && (
                <p class="snippet">
                  {highlightPieces(hit.snippet.text, hit.snippet.highlights).map((piece, i) =>
                    piece.mark ? <mark key={i}>{piece.text}</mark> : piece.text,
                  )}
                </p>
              )}
            </li>
          ))}
        </ol>
      )}
      {nextToken && (
        <button type="button" disabled={busy} onClick={() => void read(nextToken)}>
          {t.moreResults}
        </button>
      )}
    </main>
  );
}
