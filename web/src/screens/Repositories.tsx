import { useEffect, useState } from 'preact/hooks';
import type { Repository } from '../../../lib/client/index';
import { expectData } from '../../../lib/files-client/errors';
import { ErrorText, PromptDialog } from '../components/ui';
import { formatDate } from '../format';
import { t } from '../messages';
import { href, navigate } from '../router';
import { api } from '../session';

export function Repositories() {
  const [items, setItems] = useState<Repository[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [creating, setCreating] = useState(false);
  const load = async () => {
    const all: Repository[] = [];
    for (let nextToken: string | undefined, first = true; first || nextToken; first = false) {
      const page = expectData('GET /', await api.GET('/', { params: { query: { limit: 100, ...(nextToken ? { nextToken } : {}) } } }));
      all.push(...page.items);
      nextToken = page.nextToken;
    }
    setItems(all);
  };
  useEffect(() => {
    load().catch(setError);
  }, []);
  return (
    <main id="main">
      <h1>{t.repositories}</h1>
      <button type="button" onClick={() => setCreating(true)}>
        {t.newRepository}
      </button>
      <ErrorText error={error} />
      {items === undefined ? (
        <p>{t.loading}</p>
      ) : items.length === 0 ? (
        <p class="empty">{t.noRepositories}</p>
      ) : (
        <ul class="cards">
          {items.map((repo) => (
            <li key={repo.id}>
              <a href={href.folder(repo.id)}>{repo.name}</a> <span class="muted">{t.roles[repo.role]}</span>{' '}
              <span class="muted">{formatDate(repo.updatedAt)}</span>
            </li>
          ))}
        </ul>
      )}
      {creating && (
        <PromptDialog
          title={t.newRepository}
          label={t.repositoryName}
          submit={t.create}
          onClose={() => setCreating(false)}
          onSubmit={async (name) => {
            try {
              const repo = expectData('POST /', await api.POST('/', { body: { name } }));
              setCreating(false);
              navigate(href.folder(repo.id));
            } catch (e) {
              setError(e);
            }
          }}
        />
      )}
    </main>
  );
}
