/**
 * `npm run bench`: speed and cost of the service, each scenario in turn, then the reports
 * (report.ts). Not part of `npm test`. Three processes: this runner (autocannon, bundling,
 * reports), DynamoDB Local (in memory), and the service process (service.ts: the local server
 * and the direct store calls, on one client). BENCH_SECONDS sets the length of each measured
 * run (default 4); BENCH_ONLY=feed,sharing runs only the scenarios named and keeps the others'
 * figures from results.json; `--report` rewrites the reports from results.json without measuring.
 */
import { fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { connect } from './processes';
import { writeReports } from './report';
import type { Results } from './results';
import type { Bench, Scenario } from './scenario';
import { capacity } from './scenarios/capacity';
import { coldStart } from './scenarios/cold-start';
import { cost } from './scenarios/cost';
import { feed } from './scenarios/feed';
import { files } from './scenarios/files';
import { hashing } from './scenarios/hashing';
import { lifecycle } from './scenarios/lifecycle';
import { links } from './scenarios/links';
import { scale } from './scenarios/scale';
import { search } from './scenarios/search';
import { sharing } from './scenarios/sharing';
import { throughput } from './scenarios/throughput';
import { webApp } from './scenarios/web-app';
import type { ServiceHandlers } from './service';

const scenarios: Scenario[] = [
  capacity,
  throughput,
  scale,
  coldStart,
  cost,
  feed,
  sharing,
  lifecycle,
  files,
  hashing,
  links,
  search,
  webApp,
];
const TABLE = 'documents-bench';
/** The service's and the cost scenario's bundles' alike: a paging token or feed cursor made by one is good in the other. */
const PAGING_TOKEN_SECRET = 'bench';
const log = (line: string) => process.stdout.write(`${line}\n`);
const lastResults = async () => JSON.parse(await readFile(join(import.meta.dirname, 'results.json'), 'utf8')) as Results;

async function main() {
  const began = performance.now();
  const elapsed = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;
  const only = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
  const unknown = only.filter((name) => !scenarios.some((s) => s.name === name));
  if (unknown.length) throw new Error(`BENCH_ONLY: no scenario ${unknown} (there are ${scenarios.map((s) => s.name)})`);
  const chosen = only.length ? scenarios.filter((s) => only.includes(s.name)) : scenarios;
  const scratch = await mkdtemp(join(tmpdir(), 'documents-bench-'));
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // for the service process too
  // DynamoDB runs TTL off the request path; the local runtime's stand-in scans the table on DynamoDB Local's one
  // thread, which would weigh on what is measured. Nothing here waits for an expiry.
  process.env.TTL_INTERVAL_MS ??= String(60 * 60_000);
  const dynamodb = await startDynamoDbLocal({});
  const child = fork(join(import.meta.dirname, 'service.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const service = connect<ServiceHandlers>(child);
  try {
    const options = { dynamodbEndpoint: dynamodb.endpoint, tableName: TABLE, pagingTokenSecret: PAGING_TOKEN_SECRET };
    const { url, token, fixture } = await service.start(options);
    const seconds = Number(process.env.BENCH_SECONDS ?? 4);
    const lambdaEnv = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      TABLE_NAME: TABLE,
      DYNAMODB_ENDPOINT: dynamodb.endpoint,
      PAGING_TOKEN_SECRET,
      LOG_LEVEL: 'INFO',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const bench: Bench = { service, target: { url, token }, fixture, seconds, lambdaEnv, scratch, log };
    log(`bench: service at ${url}, DynamoDB Local at ${dynamodb.endpoint}, ${seconds} s per run`);
    // A partial run starts from the last full one: the reports need every scenario's figures.
    const results: Partial<Results> = chosen === scenarios ? { seconds } : { ...(await lastResults()), seconds };
    for (const [i, scenario] of chosen.entries()) {
      log(`[${i + 1}/${chosen.length}] ${scenario.title} (${elapsed()})`);
      Object.assign(results, await scenario.run(bench));
    }
    const summary = await writeReports({ ...results, durationSeconds: (performance.now() - began) / 1000 } as Results);
    log(`\n${summary}\nbench: done in ${elapsed()}; wrote bench/results.md, bench/results.json and bench/access-patterns.md`);
  } finally {
    await service.stop().catch(() => child.kill());
    await dynamodb.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

(process.argv.includes('--report') ? lastResults().then(writeReports).then(log) : main()).catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
