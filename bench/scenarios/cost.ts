/**
 * Scenario 5: dollars per million calls of each endpoint on AWS. The handler's duration is
 * measured by invoking the deployed bundle (cold-start.ts bundles it) in a fresh Node process
 * with API Gateway events, against DynamoDB Local; its capacity comes from the capacity
 * scenario (AWS's rules applied to the items' sizes).
 *
 * On Lambda a function gets a share of a vCPU proportional to its memory (1 vCPU at 1,769 MB),
 * so the CPU part of the duration measured here (one core) is scaled by 1,769 / memory; the
 * rest (waiting on DynamoDB) is kept as measured. Lambda bills each call's duration rounded up
 * to the millisecond.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { memorySize } from '#lib/function-settings';
import { buildEvent, resolveRoute } from '#lib/local/lambda-event';
import type { Endpoint } from '../endpoints';
import type { Fixture } from '../fixture';
import { MB_PER_VCPU, prices } from '../prices';
import { median, round } from '../stats';
import type { CapacityRow } from './capacity';
import type { Bundle } from './cold-start';

const run = promisify(execFile);

export interface DurationRow {
  endpoint: string;
  /** The first call of a fresh process (SDK client set up, connections opened). */
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

export interface DurationSetup {
  dir: string;
  env: Record<string, string>;
  calls: number;
}

export async function measureDurations(
  bundles: Bundle[],
  list: Endpoint[],
  fixture: Fixture,
  setup: DurationSetup,
): Promise<DurationRow[]> {
  const rows: DurationRow[] = [];
  await mkdir(setup.dir, { recursive: true });
  for (const endpoint of list) {
    const [method, path] = [endpoint.method, endpoint.name.split(' ')[1]!];
    const bundle = bundles.find((b) => b.name === resolveRoute(method, path.replace(/\{[^}]+\}/g, 'x')).route.name)!;
    const requests = await endpoint.requests(setup.calls);
    const events = Array.from({ length: setup.calls }, (_, n) => {
      const request = requests(n);
      const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(request.body));
      const rawHeaders = ['host', 'api.example.com', 'content-type', 'application/json'];
      const pathOnly = request.path.split('?')[0]!;
      return buildEvent({ method, url: request.path, rawHeaders, body, sourceIp: '203.0.113.7' }, resolveRoute(method, pathOnly), {
        sub: fixture.userId,
        iss: 'https://issuer.example.com',
        aud: 'documents-api',
        iat: 1,
        exp: 4102444800,
      });
    });
    const slug = endpoint.name.replace(/[^A-Za-z]+/g, '-');
    const eventsFile = join(setup.dir, `${slug}.events.json`);
    const outFile = join(setup.dir, `${slug}.results.json`);
    await writeFile(eventsFile, JSON.stringify(events));
    await run(process.execPath, ['--input-type=module', '-e', INVOKE, pathToFileURL(bundle.file).href, eventsFile, outFile], {
      env: { PATH: process.env.PATH ?? '', MEMORY: String(memorySize), ...setup.env },
      maxBuffer: 64 * 1024 * 1024, // INFO logs, one line per call, as on Lambda
    });
    const results = JSON.parse(await readFile(outFile, 'utf8')) as { status: number; wallMs: number; cpuMs: number }[];
    const wrong = results.filter((r) => r.status !== endpoint.status);
    if (wrong.length > 0) throw new Error(`${endpoint.name}: bundle answered ${wrong.map((r) => r.status).join(', ')}`);
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
      calls: results.length,
    });
  }
  return rows;
}

export function costs(durations: DurationRow[], capacity: CapacityRow[]): CostRow[] {
  return durations.map((duration) => {
    const units = capacity.find((c) => c.endpoint === duration.endpoint)!.aws;
    const billedMs = Math.ceil(duration.lambdaMs);
    const gbSeconds = (memorySize / 1024) * (billedMs / 1000);
    const row = {
      endpoint: duration.endpoint,
      billedMs,
      readUnits: units.read,
      writeUnits: units.write,
      httpApi: prices.httpApiPerMillion,
      lambdaRequests: prices.lambdaRequestsPerMillion,
      lambdaDuration: gbSeconds * prices.lambdaArmPerGbSecond * 1e6,
      dynamodb: units.read * prices.dynamodbReadPerMillionUnits + units.write * prices.dynamodbWritePerMillionUnits,
    };
    return { ...row, total: row.httpApi + row.lambdaRequests + row.lambdaDuration + row.dynamodb };
  });
}
