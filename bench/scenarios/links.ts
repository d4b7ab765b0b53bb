/**
 * Share links: each link endpoint of bench/endpoints.ts through the local server, one request at
 * a time, REQUESTS of them after a warm-up: latency (p50, p99). Their round trips and capacity are
 * the capacity scenario's rows, the password check alone the hashing scenario's; the report puts
 * the three together. What the calls change is made first (`targets`): an `opened` link was opened
 * just before, so its `lastUsedAt` is not due during the run.
 */
import { callsOf, endpoints, requestOf, statusOf } from '../endpoints';
import { send, stats } from '../load';
import { f } from '../markdown';
import type { LinkLatencyRow } from '../results';
import type { Scenario } from '../scenario';

const REQUESTS = 20;
export const isLinkEndpoint = (name: string) => name.includes('/links') || name.startsWith('GET /s/');

export const links: Scenario = {
  name: 'links',
  title: 'share links: latency, one request at a time',
  async run({ service, target, fixture, log }) {
    const rows: LinkLatencyRow[] = [];
    for (const endpoint of endpoints.filter((e) => isLinkEndpoint(e.name))) {
      const call = await callsOf(endpoint, REQUESTS + 1, (kind, count) => service.targets(kind, count));
      await service.settled();
      const samples: number[] = [];
      for (let n = 0; n <= REQUESTS; n++) {
        const started = performance.now();
        const response = await send(target, requestOf(endpoint, fixture, call(n)));
        if (response.status !== statusOf(endpoint))
          throw new Error(`${endpoint.name}: ${response.status} ${JSON.stringify(response.body)}`);
        if (n > 0) samples.push(performance.now() - started); // the first is the warm-up
      }
      const { samples: requests, ...latency } = stats(samples);
      rows.push({ endpoint: endpoint.name, ...latency, requests });
      log(`  ${endpoint.name.padEnd(48)} p50 ${f(latency.p50)} ms, p99 ${f(latency.p99)} ms`);
    }
    return { links: rows };
  },
};
