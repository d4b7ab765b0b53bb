/** The app's routes under /app/, from location.pathname; links push history entries. */
import { signal } from '@preact/signals';

export type Route =
  | { name: 'repositories' }
  | { name: 'folder'; repositoryId: string; folderId?: string }
  | { name: 'document'; repositoryId: string; documentId: string }
  | { name: 'trash'; repositoryId: string }
  | { name: 'not-found' };

export function parseRoute(pathname: string): Route {
  const parts = pathname
    .replace(/^\/app\/?/, '')
    .split('/')
    .filter(Boolean)
    .map(decodeURIComponent);
  if (parts.length === 0) return { name: 'repositories' };
  if (parts[0] === 'repo' && parts[1]) {
    if (parts.length === 2) return { name: 'folder', repositoryId: parts[1] };
    if (parts[2] === 'folder' && parts[3]) return { name: 'folder', repositoryId: parts[1], folderId: parts[3] };
    if (parts[2] === 'doc' && parts[3]) return { name: 'document', repositoryId: parts[1], documentId: parts[3] };
    if (parts[2] === 'trash') return { name: 'trash', repositoryId: parts[1] };
  }
  return { name: 'not-found' };
}

export const href = {
  repositories: () => '/app/',
  folder: (repositoryId: string, folderId?: string) =>
    `/app/repo/${encodeURIComponent(repositoryId)}${folderId ? `/folder/${encodeURIComponent(folderId)}` : ''}`,
  document: (repositoryId: string, documentId: string) =>
    `/app/repo/${encodeURIComponent(repositoryId)}/doc/${encodeURIComponent(documentId)}`,
  trash: (repositoryId: string) => `/app/repo/${encodeURIComponent(repositoryId)}/trash`,
};

export const route = signal<Route>(parseRoute(location.pathname));

export function navigate(to: string): void {
  history.pushState(null, '', to);
  route.value = parseRoute(location.pathname);
}

addEventListener('popstate', () => {
  route.value = parseRoute(location.pathname);
});

/** A click on an in-app link navigates without a reload (a modified click still opens a tab). */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element).closest('a');
  if (!anchor || anchor.origin !== location.origin || !anchor.pathname.startsWith('/app/') || anchor.hasAttribute('download')) return;
  event.preventDefault();
  navigate(anchor.pathname);
}
