/**
 * Tracing off vs on (`node --import tsx bench/tracing.ts`): one route's function (GET
 * /document/{id}) bundled as the stack bundles it without tracing (the tracer a stub) and with
 * it, then, in fresh Node processes taking turns: module load (process start until the bundle's
 * `import()` resolved), and the warm CPU of one invocation (process.cpuUsage, median of
 * WARM_CALLS after WARMUP) through the whole stack: middy, metrics (one EMF line), the trace,
 * and one BatchGetItem to a stub DynamoDB that answers "nothing there" (a 404).
 *
 * Both variants run with Lambda's environment (AWS_EXECUTION_ENV, LAMBDA_TASK_ROOT, a sampled `_X_AMZN_TRACE_ID`),
 * so with tracing on the X-Ray SDK builds and sends its segments (over UDP to 127.0.0.1:2000,
 * where nothing listens: what the daemon's socket costs on Lambda). Prints one Markdown table.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { bundleHandler } from '#lib/bundling';

const ROUNDS = Number(process.env.ROUNDS ?? 15);
const WARMUP = 50;
const WARM_CALLS = 300;

/** Runs in the child: load, then warm invocations; one JSON line on stderr (stdout carries the logs and EMF). */
const CHILD = `const started = performance.now();
const { handler } = await import(process.argv[1]);
const loadMs = performance.now();
const event = (i) => ({
  version: '2.0', routeKey: 'GET /document/{id}', rawPath: '/document/d' + i, rawQueryString: '', headers: {},
  pathParameters: { id: 'AAAAAAAAAAAAAAAAAAAAAA' },
  requestContext: { requestId: 'r' + i, routeKey: 'GET /document/{id}', http: { method: 'GET', path: '/document/d' + i },
    authorizer: { jwt: { claims: { sub: 'bench-user' }, scopes: [] } } },
  isBase64Encoded: false,
});
const context = (i) => ({ awsRequestId: 'req-' + i, functionName: 'bench', getRemainingTimeInMillis: () => 20000 });
let status;
for (let i = 0; i < ${WARMUP}; i++) status = (await handler(event(i), context(i))).statusCode;
const cpu = [];
for (let i = 0; i < ${WARM_CALLS}; i++) {
  const before = process.cpuUsage();
  await handler(event(i), context(i));
  const used = process.cpuUsage(before);
  cpu.push((used.user + used.system) / 1000);
}
cpu.sort((a, b) => a - b);
process.stderr.write('RESULT ' + JSON.stringify({ loadMs, importMs: loadMs - started, status, warmCpuMs: cpu[cpu.length >> 1] }) + '\\n');`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** A DynamoDB that has nothing: every BatchGetItem answers with no items. */
function stubDynamoDb(): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    req.resume().on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ Responses: { documents: [] }, UnprocessedKeys: {} }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${address.port}`, close: () => server.close() });
    }),
  );
}

async function runOnce(file: string, tracing: boolean, dynamodb: string) {
  const env = {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    // The X-Ray SDK's Lambda mode (a facade segment from _X_AMZN_TRACE_ID) needs it; without it
    // there is no segment, and tracing would cost only the SDK's load.
    LAMBDA_TASK_ROOT: '/var/task',
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    _HANDLER: 'index.handler',
    _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
    AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
    LOG_LEVEL: 'INFO',
    TABLE_NAME: 'documents',
    DYNAMODB_ENDPOINT: dynamodb,
    POWERTOOLS_METRICS_NAMESPACE: 'Bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...(tracing ? { POWERTOOLS_TRACE_ENABLED: 'true' } : {}),
  };
  const { stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CHILD, pathToFileURL(file).href], {
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = stderr.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`no result from the ${tracing ? 'traced' : 'untraced'} bundle:\n${stderr}`);
  return JSON.parse(line.slice('RESULT '.length)) as { loadMs: number; importMs: number; status: number; warmCpuMs: number };
}

const scratch = await mkdtemp(join(tmpdir(), 'bench-tracing-'));
const dynamodb = await stubDynamoDb();
try {
  const variants = [
    { name: 'tracing off (tracer stubbed out)', tracing: false },
    { name: 'tracing on', tracing: true },
  ];
  const files = await Promise.all(
    variants.map((v) => bundleHandler('documents/get-document', join(scratch, v.tracing ? 'on' : 'off'), { tracing: v.tracing })),
  );
  // BASELINE_BUNDLE: another build of the same handler (e.g. from a commit before metrics) to compare with.
  if (process.env.BASELINE_BUNDLE) {
    variants.unshift({ name: 'baseline (BASELINE_BUNDLE)', tracing: false });
    files.unshift(process.env.BASELINE_BUNDLE);
  }
  const samples = variants.map(() => [] as Awaited<ReturnType<typeof runOnce>>[]);
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [i, variant] of variants.entries()) {
      const result = await runOnce(files[i]!, variant.tracing, dynamodb.url);
      if (result.status !== 404) throw new Error(`expected the stub's 404, got ${result.status}`);
      if (round > 0) samples[i]!.push(result); // round 0 warms the file cache
    }
  }
  const rows = await Promise.all(
    variants.map(async (variant, i) => {
      const code = await readFile(files[i]!);
      const own = samples[i]!;
      return `| ${variant.name} | ${round(code.length / 1024, 1)} KB | ${round(gzipSync(code).length / 1024, 1)} KB | ${round(median(own.map((s) => s.loadMs)), 1)} | ${round(median(own.map((s) => s.importMs)), 1)} | ${round(median(own.map((s) => s.warmCpuMs)), 3)} |`;
    }),
  );
  console.log(
    `GetDocument, ${ROUNDS} fresh processes per variant taking turns; warm CPU: median of ${WARM_CALLS} invocations after ${WARMUP}\n`,
  );
  console.log('| Variant | Minified | gzip | Load ms | Import ms | Warm CPU ms/invocation |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  dynamodb.close();
  await rm(scratch, { recursive: true, force: true });
}
