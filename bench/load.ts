/**
 * Load and its summary, alike on both sides of a comparison: HTTP through autocannon
 * (per-response times), and a closed loop of in-process calls (the direct store calls),
 * `concurrency` workers back to back as autocannon's connections are.
 */
import autocannon from 'autocannon';
import type { Latency } from './results';

export interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** A JSON body, or a raw one with its media type. */
  body?: unknown;
  raw?: { body: string; contentType: string };
  /** Headers besides the token and the content type (a share link's `Link-Password`). */
  headers?: Record<string, string>;
}

/** What goes on the wire: the content type and the body's text. */
export const wire = ({ body, raw }: Request) =>
  raw ?? (body === undefined ? undefined : { body: JSON.stringify(body), contentType: 'application/json' });

export interface Target {
  url: string;
  token: string;
}

/** The q-quantile (0..1) by nearest rank; NaN for no samples. */
export function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! : NaN;
}
export const median = (samples: readonly number[]) => quantile(samples, 0.5);
export const round = (value: number, digits = 2) => Number(value.toFixed(digits));
export const sum = <T>(items: readonly T[], pick: (item: T) => number) => items.reduce((total, item) => total + pick(item), 0);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const summarize = (latencies: number[], seconds: number, errors: number): Latency => ({
  rps: latencies.length / seconds,
  p50: quantile(latencies, 0.5),
  p99: quantile(latencies, 0.99),
  requests: latencies.length,
  errors,
});

/** One request, its status and parsed body. */
export async function send({ url, token }: Target, request: Request): Promise<{ status: number; body: any }> {
  const sent = wire(request);
  const response = await fetch(url + request.path, {
    method: request.method,
    headers: { authorization: `Bearer ${token}`, ...request.headers, ...(sent ? { 'content-type': sent.contentType } : {}) },
    body: sent?.body,
  });
  const text = await response.text();
  const isJson = /json/.test(response.headers.get('content-type') ?? '');
  return { status: response.status, body: text && isJson ? JSON.parse(text) : text || undefined };
}

/** autocannon for `seconds`, `next()` making each request; only the expected status counts as an answer. */
export function hammer(target: Target, next: () => Request, status: number, connections: number, seconds: number) {
  const samples: number[] = [];
  let wrong = 0;
  return new Promise<{ samples: number[]; latency: Latency }>((resolve, reject) => {
    const headers = { authorization: `Bearer ${target.token}` };
    const setupRequest = (defaults: autocannon.Request) => {
      const request = next();
      const sent = wire(request);
      const contentType = sent ? { 'content-type': sent.contentType } : {};
      const body = sent ? { body: sent.body } : {};
      return {
        ...defaults,
        method: request.method,
        path: request.path,
        headers: { ...headers, ...request.headers, ...contentType },
        ...body,
      };
    };
    const instance = autocannon(
      { url: target.url, connections, duration: seconds, headers, requests: [{ setupRequest }] },
      (error, result) =>
        error ? reject(error) : resolve({ samples, latency: summarize(samples, result.duration, wrong + result.errors + result.timeouts) }),
    );
    instance.on('response', (_client, statusCode, _bytes, ms) => (statusCode === status ? samples.push(ms) : wrong++));
  });
}

/** One request at a time for `seconds`, each answered 200: their latencies. */
export async function latencies(target: Target, request: Request, seconds: number): Promise<number[]> {
  const { samples, latency } = await hammer(target, () => request, 200, 1, seconds);
  if (latency.errors > 0) throw new Error(`${request.method} ${request.path}: ${latency.errors} failed requests`);
  return samples;
}

/** The requests' latencies, one at a time, taking turns for `rounds` rounds so that drift hits all alike (after a warm-up). */
export async function takingTurns(cases: { target: Target; request: Request }[], rounds: number, seconds: number) {
  const samples = cases.map(() => [] as number[]);
  for (const c of cases) await latencies(c.target, c.request, 1);
  for (let turn = 0; turn < rounds; turn++)
    for (const [i, c] of cases.entries()) samples[i]!.push(...(await latencies(c.target, c.request, Math.max(1, seconds / 2))));
  return samples;
}
export const stats = (s: number[]) => ({ p50: round(median(s), 3), p99: round(quantile(s, 0.99), 3), samples: s.length });

export async function closedLoop(call: () => Promise<unknown>, concurrency: number, seconds: number): Promise<Latency> {
  const samples: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await call();
        samples.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return summarize(samples, (performance.now() - started) / 1000, errors);
}
