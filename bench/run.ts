/**
 * `npm run bench`: speed and cost of the service, measured side by side in one run, written to
 * bench/results.md (tables) and bench/results.json. Not part of `npm test`.
 *
 * One process tree: this runner (autocannon, bundling, reports), DynamoDB Local (in memory),
 * and the service process (bench/service.ts: the local server, the direct-SDK baseline, the
 * request recorder). BENCH_SECONDS sets the length of each measured run (default 4);
 * `--report` rewrites the reports from results.json without measuring.
 */
import { fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { endpoints } from './endpoints';
import { makeFixture } from './fixture';
import { type Results, writeReports } from './report';
import { connect } from './rpc';
import { measureCapacity } from './scenarios/capacity';
import { bundleAll, measureColdStart } from './scenarios/cold-start';
import { costs, measureDurations } from './scenarios/cost';
import { measureScale } from './scenarios/scale';
import { measureThroughput } from './scenarios/throughput';
import type { ServiceHandlers } from './service';

export type ServiceClient = ReturnType<typeof connect<ServiceHandlers>>;

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const TABLE = 'documents-bench';
const log = (line: string) => process.stdout.write(`${line}\n`);

async function main() {
  const began = performance.now();
  const elapsed = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;
  const scratch = await mkdtemp(join(tmpdir(), 'documents-bench-'));
  const dynamodb = await startDynamoDbLocal({});
  const child = fork(join(import.meta.dirname, 'service.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const service = connect<ServiceHandlers>(child);
  try {
    const { url } = await service.start({ dynamodbEndpoint: dynamodb.endpoint, tableName: TABLE });
    log(`bench: service at ${url}, DynamoDB Local at ${dynamodb.endpoint}, ${seconds} s per run`);
    const fixture = await makeFixture(service, url);
    const list = endpoints(fixture);

    log(`[1/5] round trips and capacity, ${list.length} endpoints`);
    const capacity = await measureCapacity(service, fixture.api, list);
    for (const row of capacity) {
      log(`  ${row.endpoint.padEnd(28)} ${row.requests.padEnd(40)} ${row.aws.read} RRU ${row.aws.write} WRU`);
    }

    log(`[2/5] throughput and latency, service vs the same requests made directly (${elapsed()})`);
    const recorded = new Map(capacity.map((row) => [row.endpoint, row.recorded]));
    const throughput = await measureThroughput(service, fixture, list, recorded, { warmupSeconds: 1, seconds }, log);

    log(`[3/5] scale: a page of 50 from 100 and from 50,000 documents (${elapsed()})`);
    const scale = await measureScale(service, fixture, Math.max(1, seconds / 2), log);
    log(
      `  p50 ${scale.small.p50} ms (100) vs ${scale.big.p50} ms (50,000), deep page ${scale.deepPage.p50} ms: ratio ${scale.ratio.toFixed(2)}`,
    );

    log(`[4/5] cold start: bundle size and module load (${elapsed()})`);
    const bundles = await bundleAll(join(scratch, 'bundles'));
    const coldStart = await measureColdStart(bundles, 25);
    for (const row of coldStart) {
      log(
        `  ${row.name.padEnd(18)} ${(row.bytes / 1024).toFixed(0).padStart(4)} KB min, ${(row.gzipBytes / 1024).toFixed(0).padStart(3)} KB gzip, load ${row.loadMs} ms (${row.loadRatio}x empty)`,
      );
    }

    log(`[5/5] cost per million calls (${elapsed()})`);
    const durations = await measureDurations(bundles, list, fixture, {
      dir: join(scratch, 'durations'),
      calls: 40,
      env: {
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        TABLE_NAME: TABLE,
        DYNAMODB_ENDPOINT: dynamodb.endpoint,
        PAGING_TOKEN_SECRET: 'bench',
        LOG_LEVEL: 'INFO',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
    });
    const cost = costs(durations, capacity);
    for (const row of cost) log(`  ${row.endpoint.padEnd(28)} $${row.total.toFixed(3)} per million (${row.billedMs} ms billed)`);

    const summary = await writeReports({
      seconds,
      durationSeconds: (performance.now() - began) / 1000,
      capacity,
      throughput,
      scale,
      coldStart,
      durations,
      cost,
    });
    log('');
    log(summary);
    log(`bench: done in ${elapsed()}; wrote bench/results.md, bench/results.json and the table in docs/data-model.md`);
  } finally {
    await service.stop().catch(() => child.kill());
    await dynamodb.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** `--report`: rewrite results.md and the data-model table from results.json, measuring nothing. */
async function reportOnly() {
  const results = JSON.parse(await readFile(join(import.meta.dirname, 'results.json'), 'utf8')) as Results;
  log(await writeReports({ ...results, capacity: results.capacity.map((row) => ({ ...row, recorded: [] })) }));
}

(process.argv.includes('--report') ? reportOnly() : main()).catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
