/**
 * Cost: dollars per million calls of each endpoint on AWS. The handler's duration is measured
 * by calling its deployed bundle (cold-start.ts bundles it) in a fresh Node process with API
 * Gateway events, against DynamoDB Local; its capacity comes from the capacity scenario.
 *
 * On Lambda a function gets a share of a vCPU proportional to its memory (1 vCPU at 1,769 MB),
 * so the CPU part of the duration measured here (one core) is scaled by 1,769 / memory; the
 * rest (waiting on DynamoDB) is kept as measured. Lambda bills whole milliseconds.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { memorySize, timeoutSeconds } from '#lib/function-settings';
import { buildEvent, resolveRoute } from '#lib/local/lambda-event';
import { callsOf, endpoints } from '../endpoints';
import { median, round } from '../load';
import { f, table, usd } from '../markdown';
import { MB_PER_VCPU, prices } from '../prices';
import type { Bench, Scenario } from '../run';
import type { CapacityRow } from './capacity';
import type { Bundle, ColdStartRow } from './cold-start';

export interface DurationRow {
  endpoint: string;
  /** The first call of a fresh process (SDK client set up, connection opened). */
  firstMs: number;
  /** Medians over the warm calls: wall time, and CPU time of the process. */
  wallMs: number;
  cpuMs: number;
  /** Expected on Lambda at the configured memory: CPU scaled to its vCPU share, plus the wait. */
  lambdaMs: number;
  calls: number;
}

export interface CostRow {
  endpoint: string;
  billedMs: number;
  readUnits: number;
  writeUnits: number;
  /** Dollars per million calls. */
  httpApi: number;
  lambdaRequests: number;
  lambdaDuration: number;
  dynamodb: number;
  total: number;
}

/** Calls the bundle's handler with each event in turn; writes [{status, wallMs, cpuMs}]. */
const INVOKE = `
import { readFileSync, writeFileSync } from 'node:fs';
const [bundle, eventsFile, outFile] = process.argv.slice(1);
const { handler } = await import(bundle);
const results = [];
for (const [i, event] of JSON.parse(readFileSync(eventsFile, 'utf8')).entries()) {
  const context = { awsRequestId: 'bench-' + i, functionName: 'bench', functionVersion: '$LATEST', memoryLimitInMB: process.env.MEMORY,
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:bench', logGroupName: '/aws/lambda/bench', logStreamName: 'bench',
    callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => 20000 };
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await handler(event, context);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  results.push({ status: result.statusCode, wallMs, cpuMs: (used.user + used.system) / 1000 });
}
writeFileSync(outFile, JSON.stringify(results));
`;
const CLAIMS = { iss: 'https://issuer.example.com', aud: 'documents-api', iat: 1, exp: 4102444800 };

export const cost: Scenario = {
  name: 'cost',
  title: 'cost per million calls',
  async run(bench, { capacity, bundles }) {
    const durations = await measureDurations(bench, bundles!);
    const rows = costs(durations, capacity!);
    for (const row of rows) bench.log(`  ${row.endpoint.padEnd(28)} $${row.total.toFixed(3)} per million (${row.billedMs} ms billed)`);
    return { durations, cost: rows };
  },
};

async function measureDurations({ service, fixture, scratch, lambdaEnv }: Bench, bundles: Bundle[], calls = 40): Promise<DurationRow[]> {
  const rows: DurationRow[] = [];
  for (const endpoint of endpoints) {
    const call = await callsOf(endpoint, calls, (kind, count) => service.targets(kind, count));
    const events = Array.from({ length: calls }, (_, n) => {
      const { method, path, body } = endpoint.http(fixture, call(n));
      const raw = {
        method,
        url: path,
        rawHeaders: ['host', 'api.example.com', 'content-type', 'application/json'],
        sourceIp: '203.0.113.7',
      };
      const event = { ...raw, body: Buffer.from(body === undefined ? '' : JSON.stringify(body)) };
      return buildEvent(event, resolveRoute(method, path.split('?')[0]!), { sub: fixture.caller.userId, ...CLAIMS });
    });
    const route = resolveRoute(events[0]!.requestContext.http.method, events[0]!.rawPath).route.name;
    const bundle = bundles.find((b) => b.name === route)!;
    const slug = endpoint.name.replace(/[^A-Za-z]+/g, '-');
    const [eventsFile, outFile] = [join(scratch, `${slug}.events.json`), join(scratch, `${slug}.results.json`)];
    await writeFile(eventsFile, JSON.stringify(events));
    await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', INVOKE, pathToFileURL(bundle.file).href, eventsFile, outFile],
      {
        env: { PATH: process.env.PATH ?? '', MEMORY: String(memorySize), ...lambdaEnv },
        maxBuffer: 64 * 1024 * 1024, // INFO logs, one line per call, as on Lambda
      },
    );
    const results: { status: number; wallMs: number; cpuMs: number }[] = JSON.parse(await readFile(outFile, 'utf8'));
    const wrong = results.filter((r) => r.status !== endpoint.status).map((r) => r.status);
    if (wrong.length > 0) throw new Error(`${endpoint.name}: bundle answered ${wrong.join(', ')}`);
    const warm = results.slice(1);
    const wallMs = median(warm.map((r) => r.wallMs));
    const cpuMs = median(warm.map((r) => r.cpuMs));
    const lambdaMs = Math.max(0, wallMs - cpuMs) + cpuMs * Math.max(1, MB_PER_VCPU / memorySize);
    rows.push({
      endpoint: endpoint.name,
      firstMs: round(results[0]!.wallMs),
      wallMs: round(wallMs, 3),
      cpuMs: round(cpuMs, 3),
      lambdaMs: round(lambdaMs),
      calls,
    });
  }
  return rows;
}

function costs(durations: DurationRow[], capacity: CapacityRow[]): CostRow[] {
  return durations.map((duration) => {
    const units = capacity.find((c) => c.endpoint === duration.endpoint)!.aws;
    const billedMs = Math.ceil(duration.lambdaMs);
    const row = {
      endpoint: duration.endpoint,
      billedMs,
      readUnits: units.read,
      writeUnits: units.write,
      httpApi: prices.httpApiPerMillion,
      lambdaRequests: prices.lambdaRequestsPerMillion,
      lambdaDuration: (memorySize / 1024) * (billedMs / 1000) * prices.lambdaArmPerGbSecond * 1e6,
      dynamodb: units.read * prices.dynamodbReadPerMillionUnits + units.write * prices.dynamodbWritePerMillionUnits,
    };
    return { ...row, total: row.httpApi + row.lambdaRequests + row.lambdaDuration + row.dynamodb };
  });
}

/** The least a strongly consistent read of one item costs per million, before any Lambda time. */
export const READ_FLOOR = prices.httpApiPerMillion + prices.lambdaRequestsPerMillion + prices.dynamodbReadPerMillionUnits;

export function costSection(durations: DurationRow[], cost: CostRow[], coldStart: ColdStartRow[], budget: number): string {
  const doc = cost.find((row) => row.endpoint === 'GET /document/{id}')!;
  const duration = durations.find((row) => row.endpoint === 'GET /document/{id}')!;
  const load = coldStart.find((row) => row.name === 'GetDocument')!;
  const memoryRows = [128, 256, 512, 1024, MB_PER_VCPU].map((mb) => {
    const scale = Math.max(1, MB_PER_VCPU / mb);
    const ms = Math.max(0, duration.wallMs - duration.cpuMs) + duration.cpuMs * scale;
    const dollars = (mb / 1024) * (Math.ceil(ms) / 1000) * prices.lambdaArmPerGbSecond * 1e6;
    return [mb === memorySize ? `**${mb}** (configured)` : mb, f(ms, 1), usd(dollars), f(load.loadMs * scale, 0)];
  });
  const configured = memoryRows.find((row) => String(row[0]).includes('configured'))!;
  return `## 5. Cost

Dollars per million calls on AWS, ${prices.region}, list prices checked on **${prices.checked}** (\`bench/prices.ts\`): HTTP API
$${f(prices.httpApiPerMillion)} per million requests; Lambda $${f(prices.lambdaRequestsPerMillion)} per million requests and $${prices.lambdaArmPerGbSecond} per GB-second
(arm64); DynamoDB on-demand $${f(prices.dynamodbReadPerMillionUnits, 3)} per million RRU and $${f(prices.dynamodbWritePerMillionUnits, 3)} per million WRU. Free tiers,
logs and data transfer are left out.

**Handler duration.** Each function's bundle called ${durations[0]!.calls} times in a fresh Node process with API Gateway
events, against DynamoDB Local, \`LOG_LEVEL=INFO\` as deployed; warm figures leave out the first call. At the
configured ${memorySize} MB (\`lib/function-settings.ts\`; timeout ${timeoutSeconds} s) Lambda gives ${f(memorySize / MB_PER_VCPU)} of a vCPU (one at
${MB_PER_VCPU} MB), so the CPU part is scaled by ${f(MB_PER_VCPU / memorySize)}, the wait for DynamoDB kept as measured.

${table(
  ['Endpoint', 'first call ms', 'warm ms', 'CPU ms', `on Lambda at ${memorySize} MB`],
  durations.map((row) => [row.endpoint, f(row.firstMs, 1), f(row.wallMs), f(row.cpuMs), f(row.lambdaMs, 1)]),
)}

${table(
  ['Endpoint', 'Billed ms', 'RRU / WRU', 'HTTP API', 'Lambda requests', 'Lambda duration', 'DynamoDB', 'Total per million'],
  cost.map((r) => [
    r.endpoint,
    r.billedMs,
    `${r.readUnits} / ${r.writeUnits}`,
    ...[r.httpApi, r.lambdaRequests, r.lambdaDuration, r.dynamodb].map(usd),
    `**${usd(r.total)}**`,
  ]),
)}

**GET /document/{id} and the $${f(budget)} budget.** HTTP API and the Lambda request cost
$${f(prices.httpApiPerMillion + prices.lambdaRequestsPerMillion)} per million before any code runs; the strongly consistent read the contract's
read-your-writes needs makes it **${usd(READ_FLOOR)} with no Lambda time at all**. The role, read in the same request,
adds an RRU, and ${doc.billedMs} ms at ${memorySize} MB add ${usd(doc.lambdaDuration)}: **${usd(doc.total)}**. Eventually consistent reads
(${usd(READ_FLOOR)} for both items), roles in the JWT (a revoked member keeps access until it expires) or a REST API
calling DynamoDB without Lambda ($3.50 per million) each trade away what the contract promises.

**Memory.** The same model at other sizes, for GET /document/{id} (on AWS the wait for DynamoDB is a few ms,
which favours smaller sizes a little more); cold start is §4's module load scaled the same way:

${table(['Memory MB', 'Duration ms', 'Lambda duration $ per million', 'Cold start ms (model)'], memoryRows)}

Below ${MB_PER_VCPU} MB the work is mostly CPU: halving the memory about doubles the time while the bill barely moves.
${memorySize} MB keeps a warm call near ${f(Number(configured[1]), 0)} ms and a cold start's module load near ${f(Number(configured[3]) / 1000, 1)} s.
`;
}
