/**
 * Seam for search (API section 13, `GET /search`, built by another change): the header will
 * render this box once the typed client has the route; until then the app has no search.
 * Results will go through the same typed client (`api.GET('/search', …)`), so the contract decides.
 */
export const SEARCH_READY = false;
