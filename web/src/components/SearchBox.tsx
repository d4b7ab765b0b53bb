/**
 * The search box in the header: submitting it opens the results screen (`/app/search?q=…`),
 * which asks the service through the typed client (`GET /search`, screens/Search.tsx).
 */
import { t } from '../messages';
import { href, navigate, route } from '../router';

export function SearchBox() {
  const current = route.value;
  const q = current.name === 'search' ? current.q : '';
  return (
    <search class="search-box">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const value = (new FormData(event.currentTarget).get('q') as string).trim();
          if (value) navigate(href.search(value, current.name === 'search' ? current : {}));
        }}
      >
        <input type="search" name="q" aria-label={t.search} placeholder={t.searchPlaceholder} value={q} key={q} maxLength={256} required />
        <button type="submit">{t.search}</button>
      </form>
    </search>
  );
}
