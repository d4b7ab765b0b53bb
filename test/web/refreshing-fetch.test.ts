/**
 * The web client's retry after a 401 with the managed sign-in (web/src/refreshing-fetch.ts): one
 * refresh, the request sent again with the new token and its body; parallel 401s share one
 * refresh; a session that has ended leaves the 401.
 */
import { describe, expect, it } from 'vitest';
import { refreshingFetch } from '../../web/src/refreshing-fetch';

/** A stand-in API: 401 unless the request carries `good`, and what each request sent. */
function api(good: string) {
  const seen: { auth: string | null; body: string }[] = [];
  const send = async (request: Request) => {
    seen.push({ auth: request.headers.get('authorization'), body: await request.text() });
    return new Response(null, { status: request.headers.get('authorization') === `Bearer ${good}` ? 200 : 401 });
  };
  return { send, seen };
}

/** `refresh` that counts its calls. */
function counted(refresh: () => Promise<string | undefined>) {
  const wrapped = Object.assign(
    async () => {
      wrapped.calls++;
      return refresh();
    },
    { calls: 0 },
  );
  return wrapped;
}

describe('refreshingFetch', () => {
  it('refreshes once on a 401 and sends the same request again with the new token', async () => {
    const { send, seen } = api('fresh');
    const refresh = counted(async () => 'fresh');
    const fetch = refreshingFetch({ send, refresh });
    const answer = await fetch(
      new Request('https://app.example/document', { method: 'POST', headers: { authorization: 'Bearer stale' }, body: '{"name":"a"}' }),
    );
    expect(answer.status).toBe(200);
    expect(refresh.calls).toBe(1);
    expect(seen).toEqual([
      { auth: 'Bearer stale', body: '{"name":"a"}' },
      { auth: 'Bearer fresh', body: '{"name":"a"}' },
    ]);
  });

  it('leaves other answers alone, and a 401 when the session has ended', async () => {
    const { send, seen } = api('fresh');
    const refresh = counted(async () => undefined);
    const fetch = refreshingFetch({ send, refresh });
    expect((await fetch(new Request('https://app.example/', { headers: { authorization: 'Bearer fresh' } }))).status).toBe(200);
    expect(refresh.calls).toBe(0);
    expect((await fetch(new Request('https://app.example/', { headers: { authorization: 'Bearer stale' } }))).status).toBe(401);
    expect(refresh.calls).toBe(1);
    expect(seen).toHaveLength(2);
  });

  it('shares one refresh among parallel 401s', async () => {
    const { send } = api('fresh');
    const refresh = counted(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return 'fresh';
    });
    const fetch = refreshingFetch({ send, refresh });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => fetch(new Request('https://app.example/', { headers: { authorization: 'Bearer stale' } }))),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(refresh.calls).toBe(1);
  });
});
