/** The current route, from location.pathname (and the query, for search); links push history entries. */
import { signal } from '@preact/signals';
import { parseRoute, type Route } from './routes';

export { href, parseRoute, type Route, type SearchFilters } from './routes';

const current = () => parseRoute(location.pathname, location.search);
export const route = signal<Route>(current());

export function navigate(to: string): void {
  history.pushState(null, '', to);
  route.value = current();
}

addEventListener('popstate', () => {
  route.value = current();
});

/** A click on an in-app link navigates without a reload (a modified click still opens a tab). */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element).closest('a');
  if (!anchor || anchor.origin !== location.origin || !anchor.pathname.startsWith('/app/') || anchor.hasAttribute('download')) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
