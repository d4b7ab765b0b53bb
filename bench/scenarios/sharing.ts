/**
 * Scale of access: GET /document/{id} by a user in 1 repository and by a user in 1,000 — the same
 * 1 KB document, in a repository of one member each time: the role is one attribute of a small
 * bucket item of the document's repository, so neither latency nor capacity may grow. One request
 * at a time, the two taking turns (5 rounds); capacity is one request's, the least of 3 recorded
 * (anything else in flight can only add to a recording). A service of its own in this process, on
 * its own table of the bench's DynamoDB Local, seeded with the store's own calls.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { HttpError } from '#core/errors';
import { startLocalService } from '#lib/local/service';
import { newRepository, repositoryWithDocument } from '../fixture';
import { type Request, round, send, sleep, stats, type Target, takingTurns } from '../load';
import { f } from '../markdown';
import { operations, startRecording, stopRecording, unitsOf } from '../recorder';
import type { SharingCase } from '../results';
import type { Scenario } from '../scenario';

const MANY = 1_000;

/**
 * `count` calls, 4 at a time; a call the store gave up on (503: racing changes) or DynamoDB Local
 * did not answer in time, or was still busy with (a busy machine), is made again. Such a create may
 * have committed: once one was, a create refused at the limit (409 `repository-limit`) counts as done.
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
          const late = error instanceof Error && ['TimeoutError', 'TransactionInProgressException'].includes(error.name);
          timedOut ||= late;
          if (!(late || (error instanceof HttpError && error.status === 503)) || attempt >= 10) throw error;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

/** The least capacity of 3 recorded requests, and what they sent. */
async function capacityOf(target: Target, request: Request) {
  await sleep(300);
  const runs: { rru: number; dynamodb: string }[] = [];
  for (let i = 0; i < 3; i++) {
    startRecording();
    const answer = await send(target, request);
    const recorded = stopRecording();
    if (answer.status !== 200) throw new Error(`${request.method} ${request.path} answered ${answer.status}`);
    runs.push({ rru: unitsOf(recorded).rru, dynamodb: operations(recorded) });
  }
  return runs.reduce((least, run) => (run.rru < least.rru ? run : least));
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
      const started = performance.now();
      const cases: { label: string; target: Target; request: Request }[] = [];
      for (const [label, userId, repositories] of [
        ['in 1 repository', 'in-one-repository', 1],
        [`in ${MANY} repositories`, `in-${MANY}-repositories`, MANY],
      ] as const) {
        let documentId = '';
        await seed(1, async () => (documentId = (await repositoryWithDocument({ userId }, 'Read here')).documentId));
        await seed(repositories - 1, (i) => newRepository({ userId }, `Repository ${i + 1}`));
        const target = { url: service.url, token: await service.issueToken(userId) };
        cases.push({ label, target, request: { method: 'GET', path: `/document/${documentId}` } });
      }
      await service.worker.settled(300_000);
      const seedSeconds = (performance.now() - started) / 1000;
      log(`  seeded ${MANY} repositories of one user in ${f(seedSeconds, 0)} s`);
      const samples = await takingTurns(cases, 5, seconds);
      const measured: SharingCase[] = [];
      for (const [i, c] of cases.entries()) {
        const { samples: requests, ...latency } = stats(samples[i]!);
        measured.push({ label: c.label, ...latency, requests, ...(await capacityOf(c.target, c.request)) });
      }
      const [one, many] = measured;
      const document = {
        one: one!,
        many: many!,
        latencyRatio: round(many!.p50 / one!.p50, 3),
        capacityRatio: round(many!.rru / one!.rru, 3),
      };
      log(`  latency ${f(document.latencyRatio)}×, capacity ${f(document.capacityRatio)}×`);
      return { sharing: { document, seedSeconds } };
    } finally {
      await service.stop();
    }
  },
};
