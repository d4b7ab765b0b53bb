/** The app's routes under /app/ and their addresses: pure, so the fast tier tests them without a browser. */
export type Route =
  | { name: 'repositories' }
  | { name: 'folder'; repositoryId: string; folderId?: string }
  | { name: 'document'; repositoryId: string; documentId: string }
  | { name: 'trash'; repositoryId: string }
  | { name: 'search'; q: string; kind?: 'document' | 'folder'; repositoryId?: string }
  /** A share link's page (public: no sign-in); the token is the last segment, dots and all. */
  | { name: 'shared'; token: string }
  | { name: 'not-found' };

export interface SearchFilters {
  kind?: 'document' | 'folder' | undefined;
  repositoryId?: string | undefined;
}

export function parseRoute(pathname: string, search = ''): Route {
  const parts = pathname
    .replace(/^\/app\/?/, '')
    .split('/')
    .filter(Boolean)
    .map(decodeURIComponent);
  if (parts.length === 0) return { name: 'repositories' };
  if (parts[0] === 's' && parts[1] && parts.length === 2) return { name: 'shared', token: parts[1] };
  if (parts[0] === 'search' && parts.length === 1) {
    const query = new URLSearchParams(search);
    const kind = query.get('kind');
    const repositoryId = query.get('repositoryId');
    return {
      name: 'search',
      q: query.get('q') ?? '',
      ...(kind === 'document' || kind === 'folder' ? { kind } : {}),
      ...(repositoryId ? { repositoryId } : {}),
    };
  }
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
  search: (q: string, filters: SearchFilters = {}) => {
    const query = new URLSearchParams({ q });
    if (filters.kind) query.set('kind', filters.kind);
    if (filters.repositoryId) query.set('repositoryId', filters.repositoryId);
    return `/app/search?${query}`;
  },
  shared: (token: string) => `/app/s/${encodeURIComponent(token)}`,
};
