/**
 * The web app's logic without a browser: name clash decisions (web/src/upload/clash.ts), the
 * change feed follower (web/src/feed.ts), and the upload protocol both clients share
 * (lib/files-client/protocol.ts): missing parts only, fresh URLs when one is refused or its
 * credentials expired, retries with backoff, stop on abort, `complete` waiting on 202. Search
 * snippets' highlights (web/src/highlight.ts) and the routes of search and share links.
 */
import { describe, expect, it } from 'vitest';
import type { DocumentsClient } from '#lib/client/index';
import type { Upload } from '#lib/files-client/paths';
import { completeUpload, PartRefused, sendMissingParts, UploadFailed, UploadStopped } from '#lib/files-client/protocol';
import { type Change, followFeed } from '../../web/src/feed';
import { highlightPieces } from '../../web/src/highlight';
import { href, parseRoute } from '../../web/src/routes';
import { type ClashChoice, clashPolicy, freeName } from '../../web/src/upload/clash';

describe('name clashes', () => {
  it('asks once per clash, in order, until a choice applies to all', async () => {
    const asked: string[] = [];
    const answers: { choice: ClashChoice; applyToAll: boolean }[] = [
      { choice: 'skip', applyToAll: false },
      { choice: 'keep-both', applyToAll: true },
    ];
    const policy = clashPolicy(async (name) => {
      asked.push(name);
      return answers.shift()!;
    });
    const decided = await Promise.all(['a', 'b', 'c', 'd'].map((name) => policy.decide(name)));
    expect(decided).toEqual(['skip', 'keep-both', 'keep-both', 'keep-both']);
    expect(asked).toEqual(['a', 'b']);
  });

  it('keeps both under the first free "name (n).ext"', () => {
    expect(freeName('notes.txt', new Set(['notes.txt']))).toBe('notes (2).txt');
    expect(freeName('Notes.txt', new Set(['notes.txt', 'notes (2).txt']))).toBe('Notes (3).txt');
    expect(freeName('README', new Set(['readme']))).toBe('README (2)');
    expect(freeName('.env', new Set(['.env']))).toBe('.env (2)');
  });
});

describe('following the change feed', () => {
  const change = (id: string): Change => ({ type: 'created', kind: 'document', id, folderId: 'f', at: '2026-01-01T00:00:00Z', by: 'u' });

  /** A feed whose answers are given in order; timers run when `tick()` says. */
  function harness(answers: (Awaited<ReturnType<Parameters<typeof followFeed>[0]['source']['read']>> | Error)[], visible = true) {
    const cursors: string[] = [];
    const waits: number[] = [];
    const seen: string[] = [];
    let resets = 0;
    let pending: (() => void) | undefined;
    const feed = followFeed({
      source: {
        async read(cursor) {
          cursors.push(cursor);
          const next = answers.shift() ?? { items: [], cursor };
          if (next instanceof Error) throw next;
          return next;
        },
      },
      onChanges: (changes) => seen.push(...changes.map((c) => c.id)),
      onReset: () => resets++,
      visible: () => visible,
      schedule: (ms, run) => {
        waits.push(ms);
        pending = run;
        return () => {
          pending = undefined;
        };
      },
    });
    const tick = async () => {
      await new Promise((r) => setTimeout(r, 0));
      const run = pending;
      pending = undefined;
      run?.();
      await new Promise((r) => setTimeout(r, 0));
    };
    return { feed, cursors, waits, seen, resets: () => resets, tick };
  }

  it('starts from latest, follows each cursor, and reads on while pages are full', async () => {
    const h = harness([
      { items: [], cursor: 'c1' },
      { items: [change('a')], cursor: 'c2' },
      { items: [], cursor: 'c2' },
      { items: [change('b')], cursor: 'c3' },
    ]);
    await h.tick();
    await h.tick();
    await h.tick();
    h.feed.stop();
    // A page with changes is followed at once by the next read; an empty one waits for the next round.
    expect(h.cursors).toEqual(['latest', 'c1', 'c2', 'c2', 'c3', 'c3']);
    expect(h.seen).toEqual(['a', 'b']);
  });

  it('on 410 starts over from latest and asks for a reload; a failed round tries the same cursor again', async () => {
    const h = harness([{ items: [], cursor: 'c1' }, new Error('offline'), 'gone', { items: [], cursor: 'c9' }]);
    await h.tick();
    await h.tick();
    await h.tick();
    h.feed.stop();
    expect(h.cursors).toEqual(['latest', 'c1', 'c1', 'latest']);
    expect(h.resets()).toBe(1);
  });

  it('polls seldom while the page is hidden', async () => {
    const shown = harness([{ items: [], cursor: 'c1' }]);
    await shown.tick();
    shown.feed.stop();
    const hidden = harness([{ items: [], cursor: 'c1' }], false);
    await hidden.tick();
    hidden.feed.stop();
    expect(hidden.waits[0]!).toBeGreaterThan(shown.waits[0]! * 5);
  });
});

describe('the upload protocol shared by the CLI and the web app', () => {
  const upload = (over: Partial<Upload> = {}): Upload => ({
    id: 'up1',
    documentId: 'd',
    repositoryId: 'r',
    folderId: 'f',
    name: 'big.bin',
    size: 25,
    contentType: 'application/octet-stream',
    partSize: 10,
    partCount: 3,
    parts: [1, 2, 3].map((number) => ({
      number,
      url: `https://bucket/p${number}?v=0`,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    })),
    received: [],
    status: 'open',
    expiresAt: '',
    createdAt: '',
    createdBy: '',
    ...over,
  });

  /** A stand-in for the typed client: only what the protocol calls, answering from `routes`. */
  function fakeApi(routes: Record<string, (body: any) => { status: number; body?: unknown; headers?: Record<string, string> }>) {
    const calls: string[] = [];
    const call = async (method: string, path: string, options: { body?: unknown } = {}) => {
      calls.push(`${method} ${path}`);
      const answer = routes[`${method} ${path}`]!(options.body);
      const response = new Response(null, { status: answer.status, headers: answer.headers ?? {} });
      return answer.status < 300 ? { data: answer.body, response } : { error: answer.body, response };
    };
    const api = {
      GET: (p: string, o: any) => call('GET', p, o),
      POST: (p: string, o: any) => call('POST', p, o),
    } as unknown as DocumentsClient;
    return { api, calls };
  }

  it('sends only the parts the bucket lacks, with a fresh URL after a 403 and after a 400 ExpiredToken', async () => {
    let fresh = 0;
    const { api, calls } = fakeApi({
      'POST /uploads/{id}/parts': (body: { numbers: number[] }) => ({
        status: 200,
        body: {
          items: body.numbers.map((number) => ({
            number,
            url: `https://bucket/p${number}?v=${++fresh}`,
            expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
          })),
        },
      }),
    });
    const put: string[] = [];
    const refusals = [new PartRefused(403, 'AccessDenied'), new PartRefused(400, 'ExpiredToken')];
    let bytes = 0;
    await sendMissingParts(api, upload({ received: [{ number: 1, size: 10 }] }), {
      parallel: 1,
      backoffMs: () => 0,
      progress: { skip: (n) => (bytes += n), add: (n) => (bytes += n) },
      put: async ({ url, number, length, onBytes }) => {
        put.push(url);
        if (number === 2 && refusals.length > 0) {
          onBytes(3);
          throw refusals.shift();
        }
        onBytes(length);
      },
    });
    expect(put).toEqual(['https://bucket/p2?v=0', 'https://bucket/p2?v=1', 'https://bucket/p2?v=3', 'https://bucket/p3?v=4']);
    expect(calls.filter((c) => c.includes('parts'))).toHaveLength(2);
    expect(bytes).toBe(25);
  });

  it('gives up on a part the bucket refuses for good, and stops when aborted', async () => {
    const { api } = fakeApi({});
    const refused = sendMissingParts(api, upload(), {
      parallel: 2,
      backoffMs: () => 0,
      put: async () => {
        throw new PartRefused(400, 'EntityTooSmall');
      },
    });
    await expect(refused).rejects.toBeInstanceOf(UploadFailed);
    const controller = new AbortController();
    const stopped = sendMissingParts(api, upload(), {
      parallel: 1,
      signal: controller.signal,
      backoffMs: () => 0,
      put: async () => {
        controller.abort();
        throw new Error('aborted');
      },
    });
    await expect(stopped).rejects.toBeInstanceOf(UploadStopped);
  });

  it('complete waits on 202 and resends once on upload-incomplete', async () => {
    const answers = [
      { status: 409, body: { type: 'urn:problem-type:documents:upload-incomplete', title: 'x', status: 409 } },
      { status: 202, body: upload(), headers: { 'Retry-After': '0' } },
      { status: 200, body: { id: 'd', name: 'big.bin' } },
    ];
    const { api } = fakeApi({ 'POST /uploads/{id}/complete': () => answers.shift()! });
    let resent = 0;
    const document = await completeUpload(api, upload(), async () => {
      resent++;
    });
    expect(document).toMatchObject({ id: 'd' });
    expect(resent).toBe(1);
  });
});

describe('search snippets', () => {
  const marked = (text: string, highlights: number[][]) =>
    highlightPieces(text, highlights)
      .map((p) => (p.mark ? `[${p.text}]` : p.text))
      .join('');

  it('marks each [start, end) range of the text, in UTF-16 code units, and keeps every character once', () => {
    expect(marked('the quarterly report', [[4, 13]])).toBe('the [quarterly] report');
    expect(
      marked('a b c', [
        [4, 5],
        [0, 1],
      ]),
    ).toBe('[a] b [c]');
    // An emoji is two code units: the offsets count them as JavaScript does.
    expect(marked('😀 plan', [[3, 7]])).toBe('😀 [plan]');
  });

  it('merges overlapping or touching ranges, clamps those out of range, ignores empty or reversed ones', () => {
    expect(
      marked('abcdef', [
        [0, 3],
        [2, 5],
      ]),
    ).toBe('[abcde]f');
    expect(
      marked('abcdef', [
        [0, 2],
        [2, 4],
      ]),
    ).toBe('[abcd]ef');
    expect(
      marked('abc', [
        [-5, 1],
        [2, 99],
      ]),
    ).toBe('[a]b[c]');
    expect(
      marked('abc', [
        [2, 2],
        [3, 1],
        [Number.NaN, 2],
      ]),
    ).toBe('[ab]c');
    expect(marked('', [[0, 4]])).toBe('');
  });

  it('leaves markup in the text as text: pieces are strings, never HTML', () => {
    const pieces = highlightPieces('<img src=x onerror=alert(1)> plan', [[29, 33]]);
    expect(pieces).toEqual([
      { text: '<img src=x onerror=alert(1)> ', mark: false },
      { text: 'plan', mark: true },
    ]);
  });
});

describe('routes of search and share links', () => {
  it('reads the search query and its filters, and writes them back', () => {
    const address = href.search('plan & "budget"', { kind: 'document', repositoryId: 'r1' });
    const url = new URL(address, 'http://app');
    expect(parseRoute(url.pathname, url.search)).toEqual({ name: 'search', q: 'plan & "budget"', kind: 'document', repositoryId: 'r1' });
    expect(parseRoute('/app/search', '?q=x&kind=other')).toEqual({ name: 'search', q: 'x' });
  });

  it("takes a share link's token whole, dots included", () => {
    const token = 'r1abc.d1xyz.s3cr3t_-A';
    expect(parseRoute(href.shared(token))).toEqual({ name: 'shared', token });
    expect(parseRoute('/app/s/a/b')).toEqual({ name: 'not-found' });
  });
});
