/**
 * A folder: breadcrumbs, its folders then its documents (each in the API's order, by name),
 * loaded page by page into a virtualised list; the toolbar's actions (each also on the
 * keyboard); uploads by button, folder picker or drop; following the repository's change feed.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DocumentSummary, Folder as FolderItem, Repository } from '../../../lib/client/index';
import { expectData } from '../../../lib/files-client/errors';
import { Dialog, ErrorText, PromptDialog, showToast } from '../components/ui';
import { VirtualList } from '../components/VirtualList';
import { followFeed } from '../feed';
import { formatDate, formatSize } from '../format';
import { t } from '../messages';
import { href, navigate } from '../router';
import { api } from '../session';
import { uploadFiles } from '../upload/queue';
import { Members } from './Members';

export type Item =
  | { kind: 'folder'; id: string; name: string; item: FolderItem }
  | { kind: 'document'; id: string; name: string; item: DocumentSummary };

async function allPages<T>(read: (nextToken?: string) => Promise<{ items: T[]; nextToken?: string }>, onPage: (items: T[]) => void) {
  let nextToken: string | undefined;
  do {
    const page = await read(nextToken);
    onPage(page.items);
    nextToken = page.nextToken;
  } while (nextToken);
}

export function Folder(props: { repositoryId: string; folderId?: string }) {
  const [repo, setRepo] = useState<Repository>();
  const [folder, setFolder] = useState<FolderItem>();
  const [trail, setTrail] = useState<FolderItem[]>([]);
  const [items, setItems] = useState<Item[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [dialog, setDialog] = useState<'folder' | 'document' | 'members' | 'shortcuts' | { rename: Item } | { move: Item[] } | undefined>();
  const [dragging, setDragging] = useState(false);
  const listRef = useRef<HTMLDivElement>(null);
  const generation = useRef(0);
  const canWrite = repo?.role === 'owner' || repo?.role === 'editor';

  const loadItems = async (folderId: string) => {
    const mine = ++generation.current;
    const folders: Item[] = [];
    const documents: Item[] = [];
    const show = () => mine === generation.current && setItems([...folders, ...documents]);
    const query = (nextToken?: string) => ({ limit: 100, ...(nextToken ? { nextToken } : {}) });
    await allPages(
      async (nextToken) =>
        expectData(
          'GET /folder/{id}/folders',
          await api.GET('/folder/{id}/folders', { params: { path: { id: folderId }, query: query(nextToken) } }),
        ),
      (page) => {
        folders.push(...page.map((item): Item => ({ kind: 'folder', id: item.id, name: item.name, item })));
        show();
      },
    );
    await allPages(
      async (nextToken) =>
        expectData(
          'GET /folder/{id}/documents',
          await api.GET('/folder/{id}/documents', { params: { path: { id: folderId }, query: query(nextToken) } }),
        ),
      (page) => {
        documents.push(...page.map((item): Item => ({ kind: 'document', id: item.id, name: item.name, item })));
        show();
      },
    );
    show();
  };

  useEffect(() => {
    let cancelled = false;
    setItems(undefined);
    setError(undefined);
    (async () => {
      const repository = expectData('GET /{id}', await api.GET('/{id}', { params: { path: { id: props.repositoryId } } }));
      const current = props.folderId
        ? expectData('GET /folder/{id}', await api.GET('/folder/{id}', { params: { path: { id: props.folderId } } }))
        : expectData('GET /{id}/folder', await api.GET('/{id}/folder', { params: { path: { id: props.repositoryId } } }));
      if (cancelled) return;
      setRepo(repository);
      setFolder(current);
      document.title = `${current.parentId ? current.name : repository.name} – ${t.appName}`;
      // Breadcrumbs: the folders above, read upwards.
      const above: FolderItem[] = [current];
      for (let parent = current.parentId; parent && above.length < 50; ) {
        const up = expectData('GET /folder/{id}', await api.GET('/folder/{id}', { params: { path: { id: parent } } }));
        above.unshift(up);
        parent = up.parentId;
      }
      if (!cancelled) setTrail(above);
      await loadItems(current.id);
    })().catch((e) => !cancelled && setError(e));
    return () => {
      cancelled = true;
    };
  }, [props.repositoryId, props.folderId]);

  // Live: the repository's change feed; a change that touches this folder reloads its items in place.
  useEffect(() => {
    if (!folder) return;
    const feed = followFeed({
      source: {
        async read(cursor) {
          const answer = await api.GET('/{id}/changes', { params: { path: { id: props.repositoryId }, query: { cursor } } });
          if (answer.response.status === 410) return 'gone';
          return expectData('GET /{id}/changes', answer);
        },
      },
      visible: () => document.visibilityState === 'visible',
      onChanges: (changes) => {
        if (changes.some((c) => c.folderId === folder.id || c.previousFolderId === folder.id)) void loadItems(folder.id);
      },
      onReset: () => void loadItems(folder.id),
    });
    const onVisible = () => document.visibilityState === 'visible' && feed.poke();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      feed.stop();
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [folder?.id]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === '?' && !(event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement))
        setDialog('shortcuts');
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

  const open = (item: Item) =>
    navigate(item.kind === 'folder' ? href.folder(props.repositoryId, item.id) : href.document(props.repositoryId, item.id));

  const remove = async (list: Item[]) => {
    if (!canWrite || !folder) return;
    try {
      for (const item of list) {
        const answer =
          item.kind === 'folder'
            ? await api.DELETE('/folder/{id}', { params: { path: { id: item.id } } })
            : await api.DELETE('/document/{id}', { params: { path: { id: item.id } } });
        if (!answer.response.ok) throw new Error(`${item.name}: ${answer.response.status}`);
      }
      await loadItems(folder.id);
      listRef.current?.querySelector<HTMLElement>('[role=listbox]')?.focus();
      showToast(t.deleted(list.map((i) => i.name).join(', ')), {
        label: t.undo,
        run: async () => {
          for (const item of list) {
            await api.POST('/{id}/trash/{itemId}/restore', { params: { path: { id: props.repositoryId, itemId: item.id } }, body: {} });
          }
          await loadItems(folder.id);
          showToast(t.restored(list.map((i) => i.name).join(', ')));
        },
      });
    } catch (e) {
      setError(e);
    }
  };

  const rename = async (item: Item, name: string) => {
    const answer =
      item.kind === 'folder'
        ? await api.PUT('/folder', { body: { id: item.id, name, version: item.item.version } })
        : await api.PUT('/document', { body: { id: item.id, name, version: item.item.version } });
    if (!answer.response.ok) throw new Error(`${answer.response.status}`);
    setDialog(undefined);
    await loadItems(folder!.id);
  };

  const pick = (files: FileList | null, keepTree: boolean) => {
    if (!files || !folder) return;
    const list = [...files].map((file) => ({ file, path: keepTree && file.webkitRelativePath ? file.webkitRelativePath : file.name }));
    uploadFiles(list, folder.id, () => void loadItems(folder.id));
  };

  if (error && !items)
    return (
      <main id="main">
        <ErrorText error={error} />
      </main>
    );
  const selectedItems = () => {
    const box = listRef.current?.querySelector('[role=listbox]');
    const ids = [...(box?.querySelectorAll('[aria-selected=true]') ?? [])].map((el) => el.id.slice(4));
    const active = box?.getAttribute('aria-activedescendant')?.slice(4);
    const chosen = (items ?? []).filter((item) => ids.includes(item.id));
    return chosen.length > 0 ? chosen : (items ?? []).filter((item) => item.id === active);
  };
  return (
    <main
      id="main"
      class={dragging ? 'dragging' : ''}
      onDragOver={(event) => {
        if (!canWrite) return;
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        if (canWrite) pick(event.dataTransfer?.files ?? null, false);
      }}
    >
      <nav aria-label={t.breadcrumbs}>
        <ol class="breadcrumbs">
          <li>
            <a href={href.repositories()}>{t.repositories}</a>
          </li>
          {trail.map((crumb, i) => (
            <li key={crumb.id}>
              {i === trail.length - 1 ? (
                <span aria-current="page">{crumb.parentId ? crumb.name : repo?.name}</span>
              ) : (
                <a href={href.folder(props.repositoryId, crumb.id)}>{crumb.parentId ? crumb.name : repo?.name}</a>
              )}
            </li>
          ))}
        </ol>
      </nav>
      <h1>{folder ? (folder.parentId ? folder.name : repo?.name) : t.loading}</h1>
      {repo && !canWrite && <p class="note">{t.readOnly}</p>}
      <div class="toolbar" role="toolbar" aria-label={t.folderContents}>
        {canWrite && (
          <>
            <button type="button" onClick={() => setDialog('folder')}>
              {t.newFolder}
            </button>
            <button type="button" onClick={() => setDialog('document')}>
              {t.newDocument}
            </button>
            <label class="button">
              {t.upload}
              <input type="file" multiple class="visually-hidden" onChange={(e) => pick(e.currentTarget.files, false)} />
            </label>
            <label class="button">
              {t.uploadFolder}
              <input
                type="file"
                multiple
                class="visually-hidden"
                {...{ webkitdirectory: true }}
                onChange={(e) => pick(e.currentTarget.files, true)}
              />
            </label>
            <button type="button" onClick={() => selectedItems()[0] && setDialog({ rename: selectedItems()[0]! })}>
              {t.rename}
            </button>
            <button type="button" onClick={() => selectedItems().length > 0 && setDialog({ move: selectedItems() })}>
              {t.move}
            </button>
            <button type="button" onClick={() => void remove(selectedItems())}>
              {t.delete}
            </button>
          </>
        )}
        <button type="button" onClick={() => selectedItems()[0] && open(selectedItems()[0]!)}>
          {t.open}
        </button>
        <button type="button" onClick={() => setDialog('members')}>
          {t.members}
        </button>
        <a class="button" href={href.trash(props.repositoryId)}>
          {t.trash}
        </a>
        <button type="button" aria-keyshortcuts="?" onClick={() => setDialog('shortcuts')}>
          {t.shortcuts}
        </button>
      </div>
      <ErrorText error={error} />
      <div ref={listRef}>
        {items === undefined ? (
          <p>{t.loading}</p>
        ) : items.length === 0 ? (
          <p class="empty">{t.emptyFolder}</p>
        ) : (
          <VirtualList
            items={items}
            keyOf={(item) => item.id}
            label={`${t.folderContents}: ${t.itemsCount(items.length)}`}
            onOpen={open}
            {...(canWrite ? { onDelete: (list: Item[]) => void remove(list), onRename: (item: Item) => setDialog({ rename: item }) } : {})}
            row={(item) => (
              <>
                <span class="kind" aria-hidden="true">
                  {item.kind === 'folder' ? '📁' : '📄'}
                </span>
                <span class="name">{item.name}</span>
                <span class="size">{item.kind === 'document' ? formatSize(item.item.size) : t.folder}</span>
                <span class="date">{formatDate(item.item.updatedAt)}</span>
              </>
            )}
          />
        )}
      </div>
      {dialog === 'folder' && folder && (
        <PromptDialog
          title={t.newFolder}
          label={t.folderName}
          submit={t.create}
          onClose={() => setDialog(undefined)}
          onSubmit={async (name) => {
            const answer = await api.POST('/folder', { body: { parentId: folder.id, name } });
            if (!answer.response.ok) return setError(new Error(String(answer.response.status)));
            setDialog(undefined);
            await loadItems(folder.id);
          }}
        />
      )}
      {dialog === 'document' && folder && (
        <PromptDialog
          title={t.newDocument}
          label={t.documentName}
          submit={t.create}
          onClose={() => setDialog(undefined)}
          onSubmit={async (name) => {
            const answer = await api.POST('/document', { body: { folderId: folder.id, name, content: '', contentType: 'text/plain' } });
            if (!answer.response.ok) return setError(new Error(String(answer.response.status)));
            setDialog(undefined);
            navigate(href.document(props.repositoryId, answer.data!.id));
          }}
        />
      )}
      {typeof dialog === 'object' && 'rename' in dialog && (
        <PromptDialog
          title={t.rename}
          label={t.newName}
          initial={dialog.rename.name}
          submit={t.rename}
          onClose={() => setDialog(undefined)}
          onSubmit={(name) => rename(dialog.rename, name).catch(setError)}
        />
      )}
      {typeof dialog === 'object' && 'move' in dialog && (
        <MoveDialog
          items={dialog.move}
          repositoryId={props.repositoryId}
          onClose={() => setDialog(undefined)}
          onMoved={() => {
            setDialog(undefined);
            void loadItems(folder!.id);
          }}
        />
      )}
      {dialog === 'members' && repo && <Members repository={repo} onClose={() => setDialog(undefined)} />}
      {dialog === 'shortcuts' && (
        <Dialog title={t.shortcuts} onClose={() => setDialog(undefined)}>
          <dl class="shortcuts">
            {t.shortcutList.map(([keys, what]) => (
              <div key={keys}>
                <dt>
                  <kbd>{keys}</kbd>
                </dt>
                <dd>{what}</dd>
              </div>
            ))}
          </dl>
        </Dialog>
      )}
    </main>
  );
}

/** "Move to…": every drag has a click path. Lists the repository's folders by walking down from the root. */
function MoveDialog(props: { items: Item[]; repositoryId: string; onClose(): void; onMoved(): void }) {
  const [folders, setFolders] = useState<{ id: string; label: string }[]>([]);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    (async () => {
      const root = expectData('GET /{id}/folder', await api.GET('/{id}/folder', { params: { path: { id: props.repositoryId } } }));
      const found: { id: string; label: string }[] = [{ id: root.id, label: '/' }];
      const moving = new Set(props.items.map((i) => i.id));
      for (let i = 0; i < found.length && found.length < 500; i++) {
        const parent = found[i]!;
        await allPages(
          async (nextToken) =>
            expectData(
              'GET /folder/{id}/folders',
              await api.GET('/folder/{id}/folders', {
                params: { path: { id: parent.id }, query: { limit: 100, ...(nextToken ? { nextToken } : {}) } },
              }),
            ),
          (page) => {
            for (const f of page)
              if (!moving.has(f.id)) found.push({ id: f.id, label: `${parent.label === '/' ? '' : parent.label}/${f.name}` });
          },
        );
      }
      setFolders(found);
    })().catch(setError);
  }, []);
  return (
    <Dialog title={t.move} onClose={props.onClose}>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const target = new FormData(event.currentTarget).get('target') as string;
          try {
            for (const item of props.items) {
              const answer =
                item.kind === 'folder'
                  ? await api.PUT('/folder', { body: { id: item.id, parentId: target } })
                  : await api.PUT('/document', { body: { id: item.id, folderId: target } });
              if (!answer.response.ok) throw new Error(`${item.name}: ${answer.response.status}`);
            }
            props.onMoved();
          } catch (e) {
            setError(e);
          }
        }}
      >
        <label>
          {t.moveTo}
          <select name="target" required>
            {folders.map((f) => (
              <option key={f.id} value={f.id}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{t.move}</button>
      </form>
      <ErrorText error={error} />
    </Dialog>
  );
}
