/**
 * `npx tsx bench/request-path.ts`: what the request path of GET /document/{id} costs over its floor
 * (issue 35), side by side in one process, rounds taking turns, medians kept:
 *
 * - **warm CPU per call**: the GetDocument handler called in a loop (the Lambda event API Gateway
 *   sends, claims included) against a bare SDK client sending the same BatchGetItem of two items;
 *   `process.cpuUsage()` per call (DynamoDB Local's CPU is Java's, not counted);
 * - **throughput**: the local service (`npm start`'s, JWT check in its gateway included) against a
 *   bare node:http server that sends that BatchGetItem and answers its items, autocannon at
 *   REQUEST_PATH_CONNECTIONS (default 32) for REQUEST_PATH_SECONDS each (default 3); and the CPU
 *   this process spent per answer either way (both sides run here, with autocannon);
 * - a **CPU profile** of the handler's loop (node:inspector), its self time by module, written to
 *   REQUEST_PATH_PROFILE when set (a .cpuprofile for Chrome's DevTools); with
 *   REQUEST_PATH_SERVICE_PROFILE, one more service round profiled (gateway, invocation, handler), written there.
 *
 * The handler's loop runs at LOG_LEVEL=INFO, as deployed (its access line is part of its cost); the
 * local service at `npm start`'s level (WARN, lib/local/service.ts) unless LOG_LEVEL says otherwise.
 * REQUEST_PATH_ONLY=cpu or =throughput runs one half.
 *
 * Not part of `npm run bench` (its figures are not in results.json): a look at one endpoint's path.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchGetItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { startLocalService } from '#lib/local/service';
import { hammer, median, round } from './load';

const ROUNDS = Number(process.env.REQUEST_PATH_ROUNDS ?? 5);
const CALLS = Number(process.env.REQUEST_PATH_CALLS ?? 400);
const SECONDS = Number(process.env.REQUEST_PATH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.REQUEST_PATH_CONNECTIONS ?? 32);
const ONLY = process.env.REQUEST_PATH_ONLY;
const log = (line: string) => process.stderr.write(`${line}\n`);

/** The event API Gateway's HTTP API sends for GET /document/{id} after its JWT authorizer. */
const eventOf = (id: string, sub: string, n: number) =>
  ({
    version: '2.0',
    routeKey: 'GET /document/{id}',
    rawPath: `/document/${id}`,
    rawQueryString: '',
    headers: { accept: 'application/json', host: 'api.example.com' },
    pathParameters: { id },
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method: 'GET', path: `/document/${id}`, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: `request-${n}`,
      routeKey: 'GET /document/{id}',
      stage: '$default',
      time: '27/Nov/2026:18:00:00 +0000',
      timeEpoch: 0,
      authorizer: { jwt: { claims: { sub }, scopes: [] }, principalId: '', integrationLatency: 0 },
    },
  }) as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;

const contextOf = (n: number) =>
  ({
    functionName: 'GetDocument',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:GetDocument',
    memoryLimitInMB: '1024',
    awsRequestId: `aws-${n}`,
    getRemainingTimeInMillis: () => 20_000,
  }) as unknown as Context;

/** CPU microseconds per call of `call`, `count` calls one after another. */
async function cpuPerCall(call: (n: number) => Promise<unknown>, count: number): Promise<number> {
  const before = process.cpuUsage();
  for (let n = 0; n < count; n++) await call(n);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

/** Self time by module of a V8 CPU profile: the top `top` places, in ms. */
function selfTimeByModule(
  profile: { nodes: { id: number; callFrame: { url: string; functionName: string } }[]; samples: number[]; timeDeltas: number[] },
  top = 25,
) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byPlace = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)!;
    const url = frame.url.replace(/^file:\/\//, '');
    const module = url.includes('node_modules/')
      ? url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')
      : url.replace(/^.*\/doc-cost\//, '').replace(/^.*\/(functions|lib|bench)\//, '$1/') || `(${frame.functionName || 'native'})`;
    byPlace.set(module, (byPlace.get(module) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, top);
}

/** A CPU profile of this process while `work` runs (node:inspector, sampled every 100 µs). */
async function profiled(work: () => Promise<unknown>) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  await work();
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  return profile;
}

/** The warm CPU per call and the profile, in a process with nothing else running (the `cpu` argument). */
async function cpuChild() {
  const { id, sub, repositoryId } = JSON.parse(process.env.REQUEST_PATH_TARGET!) as { id: string; sub: string; repositoryId: string };
  const tableName = process.env.TABLE_NAME!;
  const { aclKey, documentKey } = await import('#core/items/keys');
  const { handler } = await import('#functions/documents/get-document');
  const keys = [documentKey(id), aclKey(repositoryId, sub)].map((key) => ({ PK: { S: key.PK }, SK: { S: key.SK } }));
  const bare = new DynamoDBClient({
    endpoint: process.env.DYNAMODB_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const bareRead = async () => {
    const answer = await bare.send(new BatchGetItemCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }));
    return (answer.Responses?.[tableName] ?? []).map((item) => unmarshall(item));
  };
  const handlerCall = async (n: number) => {
    const result = await handler(eventOf(id, sub, n), contextOf(n));
    if (result.statusCode !== 200) throw new Error(`handler answered ${result.statusCode}: ${result.body}`);
  };
  // The store's call alone (what the handler adds around it is the difference).
  const { getDocument } = await import('#core/items/document');
  const storeCall = () => getDocument({ userId: sub }, id);
  // Warm each, then rounds taking turns.
  const sides = { handler: handlerCall, store: storeCall, bare: bareRead };
  for (const call of Object.values(sides)) await cpuPerCall(call, CALLS);
  const cpu = { handler: [] as number[], store: [] as number[], bare: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [side, call] of Object.entries(sides)) cpu[side as keyof typeof sides].push(await cpuPerCall(call, CALLS));
  }
  const [h, s, b] = [median(cpu.handler), median(cpu.store), median(cpu.bare)];
  log(
    `warm CPU per call (median of ${ROUNDS} rounds of ${CALLS}): handler ${round(h, 0)} µs, its store call ${round(s, 0)} µs, ` +
      `bare SDK ${round(b, 0)} µs: handler ${round(h / b)}×, store call ${round(s / b)}× the bare SDK call`,
  );

  const profile = await profiled(() => cpuPerCall(handlerCall, CALLS * 2));
  if (process.env.REQUEST_PATH_PROFILE) await writeFile(process.env.REQUEST_PATH_PROFILE, JSON.stringify(profile));
  log(`self time of ${CALLS * 2} handler calls, by module (ms):`);
  for (const [place, ms] of selfTimeByModule(profile as never)) log(`  ${place.padEnd(60)} ${ms.toFixed(1)}`);

  bare.destroy();
}

async function main() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.env.TTL_INTERVAL_MS ??= String(60 * 60_000);
  const dynamodb = await startDynamoDbLocal({});
  const dataDir = await mkdtemp(join(tmpdir(), 'request-path-'));
  const tableName = 'request-path';
  const service = await startLocalService({ port: 0, dataDir, dynamodbEndpoint: dynamodb.endpoint, tableName, log: () => {} });
  const floor = createServer();
  try {
    // The store's modules after the service set their environment (table, endpoint).
    const { createRepository } = await import('#core/items/repository');
    const { createDocument } = await import('#core/items/document');
    const { aclKey, documentKey } = await import('#core/items/keys');
    const caller = { userId: 'request-path-user' };
    const repository = await createRepository(caller, { name: 'Path', description: '' });
    const document = await createDocument(caller, {
      folderId: repository.rootFolderId,
      name: 'one-kb.txt',
      content: 'x'.repeat(1024),
      contentType: 'text/plain',
    });
    const keys = [documentKey(document.id), aclKey(repository.id, caller.userId)].map((key) => ({ PK: { S: key.PK }, SK: { S: key.SK } }));
    const bare = new DynamoDBClient({
      endpoint: dynamodb.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const bareRead = async () => {
      const answer = await bare.send(new BatchGetItemCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }));
      return (answer.Responses?.[tableName] ?? []).map((item) => unmarshall(item));
    };
    // The floor server: the two items, as JSON.
    floor.on('request', (_request, response) => {
      bareRead().then(
        (items) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(items[0])),
        () => response.writeHead(503).end(),
      );
    });
    await new Promise<void>((resolve) => floor.listen(0, '127.0.0.1', resolve));
    const floorUrl = `http://127.0.0.1:${(floor.address() as { port: number }).port}`;
    const token = await service.issueToken(caller.userId);
    const request = { method: 'GET' as const, path: `/document/${document.id}` };

    // CPU in a child process of its own: the local service's background work (stream feeder, worker) stays out.
    // Not spawnSync: DynamoDB Local's proxy (conflict mode, commit barrier) runs in this process.
    if (ONLY !== 'throughput') {
      const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'cpu'], {
        env: {
          ...process.env,
          LOG_LEVEL: 'INFO',
          TABLE_NAME: tableName,
          DYNAMODB_ENDPOINT: dynamodb.endpoint,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
          REQUEST_PATH_TARGET: JSON.stringify({ id: document.id, sub: caller.userId, repositoryId: repository.id }),
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const [status] = await once(child, 'exit');
      if (status !== 0) throw new Error(`the CPU child failed (${status})`);
    }
    if (ONLY === 'cpu') return;

    // Requests per second, and this process's CPU per answer (service or floor, with autocannon's share alike): on a
    // loaded machine the CPU per answer holds better than the rate.
    const run = async (url: string) => {
      const before = process.cpuUsage();
      const { latency } = await hammer({ url, token }, () => request, 200, CONNECTIONS, SECONDS);
      const used = process.cpuUsage(before);
      return { rps: latency.rps, cpu: (used.user + used.system) / Math.max(1, latency.requests) };
    };
    const throughput = { service: [] as number[], floor: [] as number[], ratio: [] as number[], cpuRatio: [] as number[] };
    const cpu = { service: [] as number[], floor: [] as number[] };
    await hammer({ url: service.url, token }, () => request, 200, CONNECTIONS, 1);
    await hammer({ url: floorUrl, token }, () => request, 200, CONNECTIONS, 1);
    for (let round = 0; round < ROUNDS; round++) {
      const s = await run(service.url);
      const f = await run(floorUrl);
      throughput.service.push(s.rps);
      throughput.floor.push(f.rps);
      throughput.ratio.push(s.rps / f.rps);
      cpu.service.push(s.cpu);
      cpu.floor.push(f.cpu);
      throughput.cpuRatio.push(f.cpu / s.cpu);
    }
    log(
      `GET /document/{id} at ${CONNECTIONS} connections: service ${round(median(throughput.service), 0)} req/s, ` +
        `floor ${round(median(throughput.floor), 0)} req/s; ratio per round ${throughput.ratio.map((r) => round(r)).join(', ')}, ` +
        `median ${round(median(throughput.ratio))}×\n` +
        `CPU of this process per answer: service ${round(median(cpu.service), 0)} µs, floor ${round(median(cpu.floor), 0)} µs; ` +
        `floor/service per round ${throughput.cpuRatio.map((r) => round(r)).join(', ')}, median ${round(median(throughput.cpuRatio))}×`,
    );
    if (process.env.REQUEST_PATH_SERVICE_PROFILE) {
      const profile = await profiled(() => hammer({ url: service.url, token }, () => request, 200, CONNECTIONS, SECONDS));
      await writeFile(process.env.REQUEST_PATH_SERVICE_PROFILE, JSON.stringify(profile));
      log(`self time of the service process during one round of ${SECONDS} s, by module (ms; autocannon's own share included):`);
      for (const [place, ms] of selfTimeByModule(profile as never)) log(`  ${place.padEnd(60)} ${ms.toFixed(1)}`);
    }
    bare.destroy();
  } finally {
    floor.close();
    await service.stop();
    await dynamodb.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

(process.argv[2] === 'cpu' ? cpuChild() : main()).catch((error: unknown) => {
  process.stderr.write(`request-path failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
