/**
 * A document: text opens in an editor whose draft is kept in this browser (not as server
 * versions, which count against the quota); a save that finds a newer version (412) shows
 * mine-versus-theirs with Overwrite / Save as a copy / Discard. Images, PDFs and other files
 * are previewed from fetched bytes (a blob: URL in a sandboxed frame); revisions can be restored.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Document as Doc, Repository } from '../../../lib/client/index';
import { expectData } from '../../../lib/files-client/errors';
import { ShareLinks } from '../components/ShareLinks';
import { announce, ErrorText, showToast } from '../components/ui';
import { formatDate, formatSize } from '../format';
import { t } from '../messages';
import { href, navigate } from '../router';
import { api, apiUrl, bearer } from '../session';

const draftKey = (id: string) => `documents.draft:${id}`;
interface Draft {
  base: number;
  content: string;
}
const isText = (doc: Doc) => doc.storage === 'inline' || doc.contentType.startsWith('text/');

export function DocumentScreen(props: { repositoryId: string; documentId: string }) {
  const [doc, setDoc] = useState<Doc>();
  const [repo, setRepo] = useState<Repository>();
  const [text, setText] = useState('');
  /** The version the text in the editor was based on: a draft kept from before a reload keeps its own. */
  const [base, setBase] = useState(0);
  const [theirs, setTheirs] = useState<Doc>();
  const [blobUrl, setBlobUrl] = useState<string>();
  const [revisions, setRevisions] = useState<{ version: number; updatedAt: string; updatedBy: string; size: number }[]>([]);
  const [error, setError] = useState<unknown>();
  const [sharing, setSharing] = useState(false);
  const id = props.documentId;
  const canWrite = repo?.role === 'owner' || repo?.role === 'editor';

  const load = async () => {
    const [document, repository] = await Promise.all([
      api.GET('/document/{id}', { params: { path: { id } } }).then((a) => expectData('GET /document/{id}', a)),
      api.GET('/{id}', { params: { path: { id: props.repositoryId } } }).then((a) => expectData('GET /{id}', a)),
    ]);
    setDoc(document);
    setRepo(repository);
    window.document.title = `${document.name} – ${t.appName}`;
    if (isText(document) && document.storage === 'inline') {
      const draft = JSON.parse(localStorage.getItem(draftKey(id)) ?? 'null') as Draft | null;
      const kept = draft && draft.content !== document.content;
      setText(kept ? draft.content : (document.content ?? ''));
      setBase(kept ? draft.base : document.version);
      if (kept) announce(t.draftKept);
    } else {
      const bytes = await fetch(apiUrl(`/document/${encodeURIComponent(id)}/content`), { headers: { authorization: bearer() } });
      if (!bytes.ok) throw new Error(`content: ${bytes.status}`);
      const blob = new Blob([await bytes.arrayBuffer()], { type: document.contentType });
      setBlobUrl(URL.createObjectURL(blob));
    }
    setRevisions(
      expectData('GET revisions', await api.GET('/document/{id}/revisions', { params: { path: { id }, query: { limit: 20 } } })).items,
    );
  };
  useEffect(() => {
    load().catch(setError);
    return () => blobUrl && URL.revokeObjectURL(blobUrl);
  }, [id]);

  const edit = (value: string) => {
    setText(value);
    localStorage.setItem(draftKey(id), JSON.stringify({ base, content: value } satisfies Draft));
  };
  const save = async (version: number | undefined) => {
    const answer = await api.PUT('/document', { body: { id, content: text, ...(version ? { version } : {}) } });
    if (answer.response.status === 412) {
      setTheirs(expectData('GET /document/{id}', await api.GET('/document/{id}', { params: { path: { id } } })));
      announce(t.conflictTitle);
      return;
    }
    const saved = expectData('PUT /document', answer);
    localStorage.removeItem(draftKey(id));
    setDoc(saved);
    setBase(saved.version);
    setTheirs(undefined);
    showToast(t.saved);
  };

  if (!doc) return <main id="main">{error ? <ErrorText error={error} /> : <p>{t.loading}</p>}</main>;
  return (
    <main id="main">
      <nav aria-label={t.breadcrumbs}>
        <a href={href.folder(props.repositoryId, doc.folderId)}>← {t.folder}</a>
      </nav>
      <h1>{doc.name}</h1>
      <p class="muted">
        {t.version(doc.version)} · {formatSize(doc.size)} · {formatDate(doc.updatedAt)} · {doc.updatedBy}
      </p>
      <button type="button" onClick={() => setSharing(true)}>
        {t.share}
      </button>
      {sharing && <ShareLinks documentId={id} canWrite={canWrite} onClose={() => setSharing(false)} />}
      <ErrorText error={error} />
      {theirs ? (
        <section aria-labelledby="conflict-title" class="conflict">
          <h2 id="conflict-title">{t.conflictTitle}</h2>
          <div class="side-by-side">
            <label>
              {t.mine}
              <textarea readOnly value={text} rows={12} />
            </label>
            <label>
              {t.theirs(theirs.updatedBy)}
              <textarea readOnly value={theirs.content ?? ''} rows={12} />
            </label>
          </div>
          <button type="button" onClick={() => save(theirs.version).catch(setError)}>
            {t.overwrite}
          </button>
          <button
            type="button"
            onClick={async () => {
              try {
                const copy = expectData(
                  'POST /document',
                  await api.POST('/document', {
                    body: { folderId: doc.folderId, name: t.copyName(doc.name), content: text, contentType: doc.contentType },
                  }),
                );
                localStorage.removeItem(draftKey(id));
                navigate(href.document(props.repositoryId, copy.id));
              } catch (e) {
                setError(e);
              }
            }}
          >
            {t.saveAsCopy}
          </button>
          <button
            type="button"
            onClick={() => {
              localStorage.removeItem(draftKey(id));
              setDoc(theirs);
              setBase(theirs.version);
              setText(theirs.content ?? '');
              setTheirs(undefined);
            }}
          >
            {t.discard}
          </button>
        </section>
      ) : isText(doc) && doc.storage === 'inline' ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            save(base).catch(setError);
          }}
        >
          <label for="editor">{doc.name}</label>
          <textarea id="editor" value={text} readOnly={!canWrite} rows={20} onInput={(e) => edit(e.currentTarget.value)} />
          {canWrite && <button type="submit">{t.save}</button>}
        </form>
      ) : blobUrl ? (
        <div class="preview">
          {doc.contentType.startsWith('image/') ? (
            <img src={blobUrl} alt={doc.name} />
          ) : (
            <iframe title={doc.name} src={blobUrl} sandbox="" />
          )}
        </div>
      ) : (
        <p>{t.loading}</p>
      )}
      {blobUrl && (
        <a class="button" href={blobUrl} download={doc.name}>
          {t.download}
        </a>
      )}
      <h2>{t.revisions}</h2>
      <ul class="cards">
        {revisions.map((r) => (
          <li key={r.version}>
            {t.version(r.version)} · {formatDate(r.updatedAt)} · {r.updatedBy}{' '}
            {canWrite && r.version !== doc.version && (
              <button
                type="button"
                aria-label={`${t.restore} ${t.version(r.version)}`}
                onClick={async () => {
                  try {
                    expectData(
                      'restore revision',
                      await api.POST('/document/{id}/revisions/{version}/restore', {
                        params: { path: { id, version: String(r.version) } },
                      }),
                    );
                    localStorage.removeItem(draftKey(id));
                    await load();
                    showToast(t.restored(t.version(r.version)));
                  } catch (e) {
                    setError(e);
                  }
                }}
              >
                {t.restore}
              </button>
            )}
          </li>
        ))}
      </ul>
    </main>
  );
}
