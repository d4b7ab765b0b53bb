/** autocannon with per-response times (its own histogram rounds to whole milliseconds). */
import autocannon from 'autocannon';

export interface Hammered {
  /** ms of each response with the expected status. */
  latencies: number[];
  /** Other statuses, transport errors and timeouts. */
  errors: number;
  seconds: number;
}

export function hammer(options: autocannon.Options, expectedStatus: number): Promise<Hammered> {
  const latencies: number[] = [];
  let wrong = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => {
      if (error) reject(error);
      else resolve({ latencies, errors: wrong + result.errors + result.timeouts, seconds: result.duration });
    });
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode === expectedStatus) latencies.push(responseTime);
      else wrong++;
    });
  });
}
