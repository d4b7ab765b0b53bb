/**
 * Warm CPU per call, what cost-model.ts prices: each endpoint's function, bundled as the stack
 * bundles it, runs in a fresh Node process with API Gateway events against DynamoDB Local
 * (`LOG_LEVEL=INFO` as deployed): a warm-up, then hundreds or thousands of calls, each timed for
 * wall time and CPU (`process.cpuUsage`, garbage collection included; DynamoDB's wait is not CPU).
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { memorySizeOf } from '#lib/function-settings';
import { buildEvent, resolveRoute } from '#lib/local/lambda-event';
import { callsOf, endpoints, requestOf, statusOf } from '../endpoints';
import { median, quantile, round, wire } from '../load';
import { f } from '../markdown';
import type { DurationRow } from '../results';
import type { Scenario } from '../scenario';
import { bundleAll } from './cold-start';

/** Calls after the warm-up: writes stay under the 1,000 repositories one user may have (POST / by one user). */
export const CALLS = { read: { warmUp: 500, measured: 2_400 }, write: { warmUp: 150, measured: 600 } };
const CLAIMS = { iss: 'https://issuer.example.com', aud: 'documents-api', iat: 1, exp: 4102444800 };

/** Calls the module's handler with each event in turn, the first `warmUp` unmeasured but the first call's wall time. */
const INVOKE = `
import { readFileSync, writeFileSync } from 'node:fs';
const [bundle, eventsFile, outFile, warmUp] = process.argv.slice(1);
const { handler } = await import(bundle);
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const calls = [];
let firstMs = 0;
let total;
for (const [i, event] of events.entries()) {
  if (i === Number(warmUp)) total = process.cpuUsage();
  const context = { awsRequestId: 'bench-' + i, functionName: 'bench', functionVersion: '$LATEST', memoryLimitInMB: process.env.MEMORY,
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:bench', logGroupName: '/aws/lambda/bench', logStreamName: 'bench',
    callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => 20000 };
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await handler(event, context);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (i === 0) firstMs = wallMs;
  if (i >= Number(warmUp)) calls.push([result.statusCode, wallMs, (used.user + used.system) / 1000]);
}
const used = process.cpuUsage(total);
writeFileSync(outFile, JSON.stringify({ firstMs, calls, cpuTotalMs: (used.user + used.system) / 1000 }));
`;

export const cost: Scenario = {
  name: 'cost',
  title: 'warm CPU per call of every function, for the cost per million calls',
  async run({ service, fixture, scratch, lambdaEnv, log }) {
    const bundles = await bundleAll(join(scratch, 'cost-bundles'));
    // The file bucket: the S3 emulator in the service process, signed with its credentials.
    const { bucket, endpoint: s3Endpoint, credentials } = await service.bucket();
    const s3Env = {
      BUCKET_NAME: bucket,
      S3_ENDPOINT: s3Endpoint,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    };
    const durations: DurationRow[] = [];
    for (const endpoint of endpoints) {
      const { warmUp, measured } = endpoint.name.startsWith('GET ') ? CALLS.read : CALLS.write;
      const call = await callsOf(endpoint, warmUp + measured, (kind, n) => service.targets(kind, n));
      // POST / by a user of its own: hundreds of new repositories would take the fixture's user past the 1,000 one may be in.
      const sub = endpoint.name === 'POST /' ? 'cost-creator' : fixture.caller.userId;
      const events = Array.from({ length: warmUp + measured }, (_, n) => {
        const request = requestOf(endpoint, fixture, call(n));
        const sent = wire(request) ?? { body: '', contentType: 'application/json' };
        const rawHeaders = ['host', 'api.example.com', 'content-type', sent.contentType];
        const raw = { method: request.method, url: request.path, rawHeaders, sourceIp: '203.0.113.7', body: Buffer.from(sent.body) };
        return buildEvent(raw, resolveRoute(request.method, request.path.split('?')[0]!), { sub, ...CLAIMS });
      });
      const route = resolveRoute(events[0]!.requestContext.http.method, events[0]!.rawPath).route.name;
      const files = { events: join(scratch, 'events.json'), out: join(scratch, 'calls.json') };
      await writeFile(files.events, JSON.stringify(events));
      const args = [
        '--input-type=module',
        '-e',
        INVOKE,
        pathToFileURL(bundles.find((b) => b.name === route)!.file).href,
        files.events,
        files.out,
        String(warmUp),
      ];
      const env = { PATH: process.env.PATH ?? '', MEMORY: String(memorySizeOf(route)), ...lambdaEnv, ...s3Env };
      await promisify(execFile)(process.execPath, args, { env, maxBuffer: 256 * 1024 * 1024 }); // INFO logs, a line per call
      const run: { firstMs: number; calls: [number, number, number][]; cpuTotalMs: number } = JSON.parse(await readFile(files.out, 'utf8'));
      const wrong = [...new Set(run.calls.filter(([status]) => status !== statusOf(endpoint)).map(([status]) => status))];
      if (wrong.length > 0) throw new Error(`${endpoint.name}: the bundle answered ${wrong.join(', ')}`);
      durations.push({
        endpoint: endpoint.name,
        route,
        cpuMs: round(run.cpuTotalMs / run.calls.length, 3),
        cpuP99: round(
          quantile(
            run.calls.map((c) => c[2]),
            0.99,
          ),
          3,
        ),
        waitMs: round(median(run.calls.map((c) => Math.max(0, c[1] - c[2]))), 3),
        firstMs: round(run.firstMs),
        calls: run.calls.length,
      });
      log(`  ${endpoint.name.padEnd(28)} CPU ${f(durations.at(-1)!.cpuMs, 3)} ms/call, wait ${f(durations.at(-1)!.waitMs)} ms`);
    }
    return { durations };
  },
};
