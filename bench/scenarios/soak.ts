/**
 * A bounded soak (issue 13): 64 clients for BENCH_SOAK_SECONDS (default 60) of mixed reads and
 * writes on one repository — reads of documents and lists, and creates, updates, renames and
 * deletes of documents that other clients are reading and changing at the same moment. Budget:
 * not one 5xx; p50 and p99 reported; then, once the background worker has caught up, the
 * table's invariants checked (test/support/invariants.ts) — no entry without its item or the
 * reverse, nothing half in the trash, no change left unnumbered.
 */
import type { Request } from '../endpoints';
import { quantile, send } from '../load';
import { f, table } from '../markdown';
import type { Scenario } from '../run';

const CLIENTS = 64;
const POOL = 200;

export interface SoakResult {
  clients: number;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  serverErrors: number;
  /** What the invariants scan found (empty: nothing). */
  violations: string[];
}

type Op = { weight: number; run: () => Request | undefined };

export const soak: Scenario = {
  name: 'soak',
  title: 'soak: mixed reads and writes from 64 clients',
  async run({ service, target, fixture, log }) {
    const seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 60);
    const folderId = fixture.writeFolderId;
    const pool = await service.seed(POOL);
    let made = 0;
    /** A request on a document of the pool (undefined while the pool is empty). */
    const onDocument = (request: (id: string) => Request) => () => {
      const id = pool[Math.floor(Math.random() * pool.length)];
      return id === undefined ? undefined : request(id);
    };
    const ops: Op[] = [
      { weight: 45, run: onDocument((id) => ({ method: 'GET', path: `/document/${id}` })) },
      { weight: 15, run: () => ({ method: 'GET', path: `/folder/${folderId}/documents?limit=50` }) },
      { weight: 5, run: () => ({ method: 'GET', path: '/' }) },
      { weight: 15, run: onDocument((id) => ({ method: 'PUT', path: '/document', body: { id, content: `soak ${Math.random()}` } })) },
      {
        weight: 5,
        run: onDocument((id) => ({ method: 'PUT', path: '/document', body: { id, name: `soak-${made++}-${Math.random()}.txt` } })),
      },
      {
        weight: 10,
        run: () => ({ method: 'POST', path: '/document', body: { folderId, name: `soak-new-${made++}-${Math.random()}.txt` } }),
      },
      {
        weight: 5,
        run: onDocument((id) => {
          pool.splice(pool.indexOf(id), 1);
          return { method: 'DELETE', path: `/document/${id}` };
        }),
      },
    ];
    const total = ops.reduce((sum, op) => sum + op.weight, 0);
    const choose = () => {
      let at = Math.random() * total;
      for (const op of ops) {
        at -= op.weight;
        if (at < 0) return op;
      }
      return ops[0]!;
    };

    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    const end = performance.now() + seconds * 1000;
    const client = async () => {
      while (performance.now() < end) {
        const request = choose().run();
        if (!request) continue;
        const started = performance.now();
        let status: number | string;
        try {
          const answer = await send(target, request);
          status = answer.status;
          if (request.method === 'POST' && answer.status === 201) pool.push(answer.body.id);
        } catch {
          status = 'transport error';
        }
        latencies.push(performance.now() - started);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const serverErrors = Object.entries(statuses)
      .filter(([status]) => !/^[1-4]\d\d$/.test(status))
      .reduce((sum, [, n]) => sum + n, 0);
    await service.settled();
    const violations = await service.invariants();
    const result: SoakResult = {
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
      `  ${result.requests} requests (${f(result.rps, 0)}/s), p50 ${f(result.p50, 1)} ms, p99 ${f(result.p99, 1)} ms, ` +
        `${serverErrors} 5xx, ${violations.length} invariant violations`,
    );
    return { soak: result };
  },
};

export const soakSection = (r: SoakResult) => `## 10. Soak

${r.clients} clients for ${r.seconds} s on one repository: reads of documents (45%), of a folder's list (15%) and of
\`GET /\` (5%); content updates (15%), renames (5%), creates (10%) and deletes (5%) of documents other clients read and
change at the same time. 4xx answers are expected (a document deleted by one client is 404 to the next one); a 5xx is not.
Afterwards, once the background worker had caught up, a scan of the table checked its invariants.

${table(
  ['Requests', 'Per second', 'p50 (ms)', 'p99 (ms)', '5xx', 'Invariant violations'],
  [[String(r.requests), f(r.rps, 0), f(r.p50, 1), f(r.p99, 1), String(r.serverErrors), String(r.violations.length)]],
)}

Answers by status: ${Object.entries(r.statuses)
  .map(([status, n]) => `${status} × ${n}`)
  .join(', ')}.${r.violations.length ? `\n\nViolations:\n\n${r.violations.map((v) => `- ${v}`).join('\n')}` : ''}
`;
