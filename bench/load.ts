/**
 * Load on both sides of a comparison, summarized alike: HTTP through autocannon (per-response
 * times; its own histogram rounds to whole milliseconds), and a closed loop of in-process calls
 * (the direct store calls), `concurrency` workers back to back as autocannon's connections are.
 */
import autocannon from 'autocannon';
import type { Request } from './endpoints';

export interface Latency {
  /** Requests per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Wrong statuses, transport errors, timeouts, thrown calls. */
  errors: number;
}

/** The q-quantile (0..1) by nearest rank; NaN for no samples. */
export function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! : NaN;
}
export const median = (samples: readonly number[]) => quantile(samples, 0.5);
export const round = (value: number, digits = 2) => Number(value.toFixed(digits));

export const summarize = (latencies: number[], seconds: number, errors: number): Latency => ({
  rps: latencies.length / seconds,
  p50: quantile(latencies, 0.5),
  p99: quantile(latencies, 0.99),
  requests: latencies.length,
  errors,
});

export interface Target {
  url: string;
  token: string;
}

/** One request, its status and parsed body. */
export async function send({ url, token }: Target, request: Request): Promise<{ status: number; body: any }> {
  const json = request.body !== undefined;
  const response = await fetch(url + request.path, {
    method: request.method,
    headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify(request.body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** `next()` makes each request; only the expected status counts as an answer. */
export function hammer(target: Target, next: () => Request, status: number, connections: number, seconds: number) {
  const latencies: number[] = [];
  let wrong = 0;
  return new Promise<{ latencies: number[]; errors: number; seconds: number }>((resolve, reject) => {
    const setupRequest = (request: autocannon.Request) => {
      const { method, path, body } = next();
      return { ...request, method, path, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    };
    const headers = { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' };
    const instance = autocannon(
      { url: target.url, connections, duration: seconds, headers, requests: [{ setupRequest }] },
      (error, result) =>
        error ? reject(error) : resolve({ latencies, errors: wrong + result.errors + result.timeouts, seconds: result.duration }),
    );
    instance.on('response', (_client, statusCode, _bytes, ms) => (statusCode === status ? latencies.push(ms) : wrong++));
  });
}

export async function closedLoop(call: () => Promise<unknown>, concurrency: number, seconds: number): Promise<Latency> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await call();
        latencies.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return summarize(latencies, (performance.now() - started) / 1000, errors);
}
