/** Small statistics over samples (milliseconds, sizes): enough for medians and tails. */

/** The q-quantile (0..1) by nearest rank; NaN for no samples. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (samples: readonly number[]) => quantile(samples, 0.5);

export interface Latency {
  /** Requests per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Responses that were not the expected status, and transport errors. */
  errors: number;
}

export function summarize(latencies: readonly number[], seconds: number, errors: number): Latency {
  return {
    rps: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    requests: latencies.length,
    errors,
  };
}

export const round = (value: number, digits = 2) => Number(value.toFixed(digits));
