/**
 * A bounded soak: 64 clients for BENCH_SOAK_SECONDS (default 60) of mixed reads and writes on
 * one repository — reads of documents and lists, creates, updates, renames and deletes of
 * documents other clients read and change at the same moment. Not one 5xx may come back; then,
 * once the background worker has caught up, the table's invariants (test/support/invariants.ts).
 */
import { quantile, type Request, send } from '../load';
import { f } from '../markdown';
import type { SoakResult } from '../results';
import type { Scenario } from '../scenario';

const CLIENTS = 64;

export const soak: Scenario = {
  name: 'soak',
  title: 'soak: mixed reads and writes from 64 clients',
  async run({ service, target, fixture, log }) {
    const seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 60);
    const folderId = fixture.writeFolderId;
    const pool = await service.seed(200);
    let made = 0;
    const onDocument = (request: (id: string) => Request) => () => {
      const id = pool[Math.floor(Math.random() * pool.length)];
      return id === undefined ? undefined : request(id);
    };
    const ops: [weight: number, next: () => Request | undefined][] = [
      [45, onDocument((id) => ({ method: 'GET', path: `/document/${id}` }))],
      [15, () => ({ method: 'GET', path: `/folder/${folderId}/documents?limit=50` })],
      [5, () => ({ method: 'GET', path: '/' })],
      [15, onDocument((id) => ({ method: 'PUT', path: '/document', body: { id, content: `soak ${Math.random()}` } }))],
      [5, onDocument((id) => ({ method: 'PUT', path: '/document', body: { id, name: `soak-${made++}-${Math.random()}.txt` } }))],
      [10, () => ({ method: 'POST', path: '/document', body: { folderId, name: `soak-new-${made++}-${Math.random()}.txt` } })],
      [
        5,
        onDocument((id) => {
          pool.splice(pool.indexOf(id), 1);
          return { method: 'DELETE', path: `/document/${id}` };
        }),
      ],
    ];
    const choose = () => {
      let at = Math.random() * 100;
      for (const [weight, next] of ops) {
        if (at < weight) return next();
        at -= weight;
      }
      return ops[0]![1]();
    };
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    const end = performance.now() + seconds * 1000;
    const client = async () => {
      while (performance.now() < end) {
        const request = choose();
        if (!request) continue;
        const started = performance.now();
        let status: number | string = 'transport error';
        try {
          const answer = await send(target, request);
          status = answer.status;
          if (request.method === 'POST' && answer.status === 201) pool.push(answer.body.id);
        } catch {}
        latencies.push(performance.now() - started);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const serverErrors = Object.entries(statuses).reduce((sum, [status, n]) => sum + (/^[1-4]\d\d$/.test(status) ? 0 : n), 0);
    await service.settled();
    const violations = await service.invariants();
    const r: SoakResult = {
      clients: CLIENTS,
      seconds,
      requests: latencies.length,
      rps: latencies.length / seconds,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      statuses,
      serverErrors,
      violations,
    };
    log(
      `  ${r.requests} requests (${f(r.rps, 0)}/s), p50 ${f(r.p50, 1)} ms, p99 ${f(r.p99, 1)} ms, ${serverErrors} 5xx, ${violations.length} violations`,
    );
    return { soak: r };
  },
};
