/**
 * The API client's fetch with the managed sign-in (web/src/session.ts): a 401 means the access
 * token in memory is no longer good (the laptop slept past the refresh timer, or the session was
 * revoked elsewhere), so it asks for a fresh one once and sends the request again with it. Parallel
 * 401s share one refresh. When no fresh token comes (the session has ended), the 401 stands and
 * the app shows the sign-in.
 */
export interface RefreshingFetchOptions {
  /** The fetch that sends (the browser's). */
  send: (request: Request) => Promise<Response>;
  /** Asks `auth/refresh` for an access token: the new one, or undefined when nobody is signed in. */
  refresh: () => Promise<string | undefined>;
}

export function refreshingFetch({ send, refresh }: RefreshingFetchOptions): (request: Request) => Promise<Response> {
  let refreshing: Promise<string | undefined> | undefined;
  return async (request) => {
    // Kept before sending: a body can be read once.
    const again = request.clone();
    const answer = await send(request);
    if (answer.status !== 401) return answer;
    refreshing ??= refresh().finally(() => {
      refreshing = undefined;
    });
    const token = await refreshing;
    if (!token) return answer;
    again.headers.set('Authorization', `Bearer ${token}`);
    return send(again);
  };
}
