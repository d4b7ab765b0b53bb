/**
 * One invocation of one bundled function, in a process of its own with only the function's
 * environment, as SAM CLI's container does it: the event on stdin; `START`, `END` and `REPORT` on
 * stderr, the function's own output on stdout and stderr (its logs); the result (or Lambda's error
 * object) as one JSON line on file descriptor 3, apart from anything the function prints. Plain JavaScript so it starts without a TypeScript loader, like the bundle it runs.
 *
 * Usage: node runtime.mjs <code folder> <handler: file.export> <function name> <timeout s> <memory MB>
 */
import { randomUUID } from 'node:crypto';
import { existsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [codeDir, handlerName, functionName, timeoutText, memoryText] = process.argv.slice(2);
/** The answer, on its own channel. */
const answer = (value) => writeSync(3, `${JSON.stringify(value)}\n`);
const timeoutMs = Number(timeoutText) * 1000;
const requestId = randomUUID();

const input = await new Promise((resolve, reject) => {
  const chunks = [];
  process.stdin.on('data', (chunk) => chunks.push(chunk));
  process.stdin.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  process.stdin.once('error', reject);
});

const dot = handlerName.lastIndexOf('.');
const [file, exportName] = [handlerName.slice(0, dot), handlerName.slice(dot + 1)];
const modulePath = ['.mjs', '.js', '.cjs'].map((ext) => join(codeDir, `${file}${ext}`)).find((path) => existsSync(path));

const started = performance.now();
process.stderr.write(`START RequestId: ${requestId} Version: $LATEST\n`);
const report = (extra = '') => {
  const ms = performance.now() - started;
  process.stderr.write(`END RequestId: ${requestId}\n`);
  process.stderr.write(
    `REPORT RequestId: ${requestId}\tDuration: ${ms.toFixed(2)} ms\tBilled Duration: ${Math.ceil(ms)} ms\tMemory Size: ${memoryText} MB\tMax Memory Used: ${Math.ceil(process.memoryUsage.rss() / 1048576)} MB${extra}\n`,
  );
};
/** Lambda's answer for a function that failed: its error object, where a result would be. */
const failed = (error) => {
  report();
  const trace = typeof error?.stack === 'string' ? error.stack.split('\n') : [];
  answer({ errorType: error?.name ?? 'Error', errorMessage: error?.message ?? String(error), trace });
  process.exit(0);
};

try {
  if (!modulePath) throw Object.assign(new Error(`Cannot find module '${file}' in ${codeDir}`), { name: 'Runtime.ImportModuleError' });
  const module = await import(pathToFileURL(modulePath).href);
  const handler = module[exportName];
  if (typeof handler !== 'function') {
    throw Object.assign(new Error(`${file}.${exportName} is undefined or not exported`), { name: 'Runtime.HandlerNotFound' });
  }
  const deadline = Date.now() + timeoutMs;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:123456789012:function:${functionName}`,
    memoryLimitInMB: memoryText,
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[$LATEST]local`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  const timer = setTimeout(() => {
    report();
    process.stderr.write(`Function '${functionName}' timed out after ${timeoutText} seconds\n`);
    process.exit(0);
  }, timeoutMs);
  const result = await handler(JSON.parse(input), context);
  clearTimeout(timer);
  report();
  answer(result ?? null);
  // Lambda freezes the process once answered: open sockets (the SDK's keep-alive) must not hold it.
  process.exit(0);
} catch (error) {
  failed(error);
}
