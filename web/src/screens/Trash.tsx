import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../lib/client/index';
import { expectData } from '../../../lib/files-client/errors';
import { ErrorText, showToast } from '../components/ui';
import { formatDate } from '../format';
import { t } from '../messages';
import { href } from '../router';
import { api } from '../session';

type TrashItem = components['schemas']['TrashItem'];

export function Trash(props: { repositoryId: string }) {
  const [items, setItems] = useState<TrashItem[] | undefined>();
  const [error, setError] = useState<unknown>();
  const id = props.repositoryId;
  const load = async () =>
    setItems(expectData('GET /{id}/trash', await api.GET('/{id}/trash', { params: { path: { id }, query: { limit: 100 } } })).items);
  useEffect(() => {
    load().catch(setError);
  }, [id]);
  return (
    <main id="main">
      <nav aria-label={t.breadcrumbs}>
        <a href={href.folder(id)}>← {t.folder}</a>
      </nav>
      <h1>{t.trash}</h1>
      <ErrorText error={error} />
      {items?.length === 0 && <p class="empty">{t.emptyTrash}</p>}
      <ul class="cards">
        {items?.map((item) => (
          <li key={item.id}>
            <span>{item.name}</span> <span class="muted">{formatDate(item.deletedAt)}</span>{' '}
            <button
              type="button"
              aria-label={`${t.restore} ${item.name}`}
              onClick={async () => {
                try {
                  expectData(
                    'restore',
                    await api.POST('/{id}/trash/{itemId}/restore', { params: { path: { id, itemId: item.id } }, body: {} }),
                  );
                  showToast(t.restored(item.name));
                  await load();
                } catch (e) {
                  setError(e);
                }
              }}
            >
              {t.restore}
            </button>
          </li>
        ))}
      </ul>
    </main>
  );
}
