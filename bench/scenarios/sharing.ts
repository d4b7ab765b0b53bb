/**
 * Scale of access: what GET /document/{id} costs, in latency and capacity, by a user in 1
 * repository and by a user in 1,000 (the same 1 KB document, in a repository of one member each
 * time: the role is one attribute of a small bucket item of the document's repository). One
 * request at a time, the cases taking turns (5 rounds). A service of its own in this process, on
 * the bench's DynamoDB Local (its own table), seeded with the store's own calls.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { HttpError } from '#core/errors';
import type { Caller } from '#core/resources';
import { startLocalService } from '#lib/local/service';
import { newRepository, repositoryWithDocument } from '../fixture';
import { latencies, median, quantile, type Request, round, send, sleep, type Target } from '../load';
import { f } from '../markdown';
import { operations, startRecording, stopRecording, unitsOf } from '../recorder';
import type { SharingCase, SharingResult } from '../results';
import type { Scenario } from '../scenario';

const MANY = 1_000;
const ROUNDS = 5;

type Case = { label: string; target: Target; request: Request };

/** One request recorded, the least of three: anything else in flight (the worker) can only add to a recording. */
async function capacityOf({ target, request, label }: Case) {
  await sleep(300);
  const runs: { rru: number; dynamodb: string }[] = [];
  for (let i = 0; i < 3; i++) {
    startRecording();
    const answer = await send(target, request).finally(() => stopRecording());
    const recorded = stopRecording();
    if (answer.status !== 200) throw new Error(`${label}: ${request.method} ${request.path} answered ${answer.status}`);
    runs.push({ rru: unitsOf(recorded).rru, dynamodb: operations(recorded) });
  }
  return runs.reduce((least, run) => (run.rru < least.rru ? run : least));
}

/** The cases' latencies taking turns, then each one's capacity. */
async function measure(cases: Case[], seconds: number): Promise<SharingCase[]> {
  const samples = cases.map(() => [] as number[]);
  for (const c of cases) await latencies(c.target, c.request, 1); // warm-up
  for (let turn = 0; turn < ROUNDS; turn++) {
    for (const [i, c] of cases.entries()) samples[i]!.push(...(await latencies(c.target, c.request, Math.max(1, seconds / 2))));
  }
  const measured: SharingCase[] = [];
  for (const [i, c] of cases.entries()) {
    const s = samples[i]!;
    measured.push({
      label: c.label,
      p50: round(median(s), 3),
      p99: round(quantile(s, 0.99), 3),
      requests: s.length,
      ...(await capacityOf(c)),
    });
  }
  return measured;
}

/**
 * `count` calls, 4 at a time; a call the store gave up on (503: racing changes) or DynamoDB Local
 * did not answer in time (a busy machine) is made again. A timed-out create may have committed:
 * once one has, a create refused at the limit (409 `repository-limit`) counts as done.
 */
async function seed(count: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  let timedOut = false;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      for (let attempt = 0; ; attempt++) {
        try {
          await call(i);
          break;
        } catch (error) {
          if (timedOut && error instanceof HttpError && error.kind === 'repository-limit') break;
          timedOut ||= error instanceof Error && error.name === 'TimeoutError';
          const transient =
            (error instanceof HttpError && error.status === 503) || (error instanceof Error && error.name === 'TimeoutError');
          if (!transient || attempt >= 10) throw error;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

export const sharing: Scenario = {
  name: 'sharing',
  title: `scale of access: GET /document/{id} in 1 vs ${MANY} repositories`,
  async run({ service: benchService, lambdaEnv, scratch, seconds, log }) {
    await benchService.settled(); // the bench's own service idle: it shares DynamoDB Local with this one
    const dataDir = join(scratch, 'sharing');
    await mkdir(dataDir, { recursive: true });
    const dynamodbEndpoint = lambdaEnv.DYNAMODB_ENDPOINT!;
    const service = await startLocalService({ port: 0, dataDir, tableName: 'documents-bench-sharing', dynamodbEndpoint, log: () => {} });
    try {
      const as = async (caller: Caller): Promise<Target> => ({ url: service.url, token: await service.issueToken(caller.userId) });
      const started = performance.now();
      const [one, many]: Caller[] = [{ userId: 'in-one-repository' }, { userId: `in-${MANY}-repositories` }];
      const once = async <T>(call: () => Promise<T>) => {
        let made: T | undefined;
        await seed(1, async () => (made = await call()));
        return made!;
      };
      const oneDocument = (await once(() => repositoryWithDocument(one!, 'Read here'))).documentId;
      const manyDocument = (await once(() => repositoryWithDocument(many!, 'Read here'))).documentId;
      await seed(MANY - 1, (i) => newRepository(many!, `Repository ${i + 1}`));
      await service.worker.settled(300_000);
      const seedSeconds = (performance.now() - started) / 1000;
      log(`  seeded ${MANY} repositories of one user in ${f(seedSeconds, 0)} s`);

      const [docOne, docMany] = await measure(
        [
          { label: 'in 1 repository', target: await as(one!), request: { method: 'GET', path: `/document/${oneDocument}` } },
          { label: `in ${MANY} repositories`, target: await as(many!), request: { method: 'GET', path: `/document/${manyDocument}` } },
        ],
        seconds,
      );
      const result: SharingResult = {
        document: {
          one: docOne!,
          many: docMany!,
          latencyRatio: round(docMany!.p50 / docOne!.p50, 3),
          capacityRatio: round(docMany!.rru / docOne!.rru, 3),
        },
        seedSeconds,
      };
      log(`  latency ${f(result.document.latencyRatio)}×, capacity ${f(result.document.capacityRatio)}×`);
      return { sharing: result };
    } finally {
      await service.stop();
    }
  },
};
