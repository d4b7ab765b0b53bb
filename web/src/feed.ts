/**
 * Following a repository's change feed (GET /{id}/changes, API.md section 11): from `latest`,
 * each answer's cursor is the next request's; often while the page is visible, seldom while it
 * is hidden; a 410 (the cursor is older than the feed keeps) means start over and reload.
 * Pure logic with its clock and fetching given, so the fast tier tests it without a browser.
 */
import type { components } from '../../lib/client/index';

export type Change = components['schemas']['Change'];

export interface FeedSource {
  /** One page after `cursor`: its changes and next cursor, or 'gone' (410). */
  read(cursor: string): Promise<{ items: Change[]; cursor: string } | 'gone'>;
}

export interface FeedOptions {
  source: FeedSource;
  onChanges(changes: Change[]): void;
  /** The feed lost its place (410): reload what is shown. */
  onReset(): void;
  visible(): boolean;
  /** Between polls while visible / hidden, in ms. */
  visibleEveryMs?: number;
  hiddenEveryMs?: number;
  /** Wait; default setTimeout. Returns a cancel function. */
  schedule?: (ms: number, run: () => void) => () => void;
}

export const VISIBLE_EVERY_MS = 2_000;
export const HIDDEN_EVERY_MS = 30_000;

export function followFeed(options: FeedOptions): { stop(): void; poke(): void } {
  const schedule = options.schedule ?? ((ms, run) => clearTimeout.bind(undefined, setTimeout(run, ms)));
  let cursor = 'latest';
  let stopped = false;
  let cancel: (() => void) | undefined;
  let running = false;

  const round = async () => {
    if (stopped || running) return;
    running = true;
    try {
      // A page full of changes may have more behind it: read until one comes back short.
      for (let pages = 0; pages < 20; pages++) {
        const answer = await options.source.read(cursor);
        if (stopped) return;
        if (answer === 'gone') {
          cursor = 'latest';
          options.onReset();
          break;
        }
        const first = cursor === 'latest';
        cursor = answer.cursor;
        // The first answer from `latest` only sets the place to follow from.
        if (answer.items.length > 0 && !first) options.onChanges(answer.items);
        if (answer.items.length === 0 || first) break;
      }
    } catch {
      // The network or the service failed this round: the next one tries again from the same cursor.
    } finally {
      running = false;
    }
    next();
  };
  const next = () => {
    if (stopped) return;
    cancel = schedule(
      options.visible() ? (options.visibleEveryMs ?? VISIBLE_EVERY_MS) : (options.hiddenEveryMs ?? HIDDEN_EVERY_MS),
      () => void round(),
    );
  };
  void round();
  return {
    stop() {
      stopped = true;
      cancel?.();
    },
    /** Poll now (the page became visible again). */
    poke() {
      cancel?.();
      void round();
    },
  };
}
