/**
 * One structured JSON logger for every function: the lines Powertools Logger writes (same keys,
 * same order: level, message, timestamp, service, cold_start, function_arn, function_memory_size,
 * function_name, function_request_id, sampling_rate, xray_trace_id, then the line's own keys),
 * made here. Powertools' per-line work (merging its attribute stores, reading the environment,
 * its Console) was ~60 µs of a warm GET /document/{id}'s CPU, and the package ~22 KB of every
 * bundle (bench/results.md, "The request path").
 *
 * The level: Lambda's advanced logging controls (AWS_LAMBDA_LOG_LEVEL, which the stack sets to
 * the same level, lib/stack/route-function.ts) or else LOG_LEVEL; DEBUG, INFO (the default),
 * WARN, ERROR, SILENT. DEBUG and INFO go to stdout, WARN and ERROR to stderr, as Powertools'.
 * With Lambda's JSON log format a line's `level` is what Lambda filters by
 * (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-advanced.html).
 *
 * An invocation's Lambda context and keys (`withInvocation`) are kept in AsyncLocalStorage: the
 * local runtime serves concurrent requests through one module instance, and one request's
 * correlation keys must not appear on another's lines.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'aws-lambda';

const LEVELS = { DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, SILENT: 28 } as const;
type Level = keyof typeof LEVELS;
type Attributes = Record<string, unknown>;

interface Invocation {
  context: Context;
  coldStart: boolean;
  keys: Attributes;
}

const SERVICE = 'documents';
const invocations = new AsyncLocalStorage<Invocation>();
/** Keys of lines written outside an invocation's scope (the worker's, a script's). */
let globalKeys: Attributes = {};
let coldStart = true;
let threshold: number | undefined;

/** The level, read on first use (the local runtime sets LOG_LEVEL before the first request). */
function levelThreshold(): number {
  if (threshold === undefined) {
    const configured = (process.env.AWS_LAMBDA_LOG_LEVEL || process.env.LOG_LEVEL || 'INFO').toUpperCase();
    threshold = LEVELS[(configured === 'FATAL' ? 'ERROR' : configured) as Level] ?? LEVELS.INFO;
  }
  return threshold;
}

/** An error as Powertools writes it: name, the first `file:line` of its stack, message, stack, cause, own fields. */
function formatError(error: Error): Attributes {
  const { name, message, stack, cause, ...own } = error as Error & Attributes;
  const location = /\(([^()]*?):(\d+?):(\d+?)\)\\?$/m.exec(stack ?? '');
  return {
    name,
    location: location ? `${location[1]}:${Number(location[2])}` : '',
    message,
    stack,
    cause: cause instanceof Error ? formatError(cause) : cause,
    ...own,
  };
}

/**
 * JSON.stringify's replacer for `line`: its own keys without a value ('' and null, as Powertools
 * leaves them out), errors formatted, bigints as text, a circular reference named instead of thrown.
 */
function replacer(line: object): (this: unknown, key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return function (this: unknown, _key, value) {
    if (this === line && (value === '' || value === null)) return undefined;
    if (value instanceof Error) value = formatError(value);
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}

function write(level: Level, message: string, attributes: Attributes | undefined): void {
  if (LEVELS[level] < levelThreshold()) return;
  const invocation = invocations.getStore();
  const context = invocation?.context;
  const line = {
    level,
    message,
    timestamp: new Date().toISOString(),
    service: SERVICE,
    cold_start: invocation?.coldStart,
    function_arn: context?.invokedFunctionArn,
    function_memory_size: context?.memoryLimitInMB,
    function_name: context?.functionName,
    function_request_id: context?.awsRequestId,
    sampling_rate: 0,
    xray_trace_id: process.env._X_AMZN_TRACE_ID?.match(/Root=([^;]+)/)?.[1],
    ...(invocation ? invocation.keys : globalKeys),
    ...attributes,
  };
  const text = `${JSON.stringify(line, replacer(line))}\n`;
  if (LEVELS[level] >= LEVELS.WARN) process.stderr.write(text);
  else process.stdout.write(text);
}

export const logger = {
  debug: (message: string, attributes?: Attributes) => write('DEBUG', message, attributes),
  info: (message: string, attributes?: Attributes) => write('INFO', message, attributes),
  warn: (message: string, attributes?: Attributes) => write('WARN', message, attributes),
  error: (message: string, attributes?: Attributes) => write('ERROR', message, attributes),
  /** Keys on every following line: the invocation's, inside `withInvocation`; else until `resetKeys`. */
  appendKeys(keys: Attributes): void {
    const invocation = invocations.getStore();
    if (invocation) Object.assign(invocation.keys, keys);
    else globalKeys = { ...globalKeys, ...keys };
  },
  resetKeys(): void {
    const invocation = invocations.getStore();
    if (invocation) invocation.keys = {};
    else globalKeys = {};
  },
  /** Runs one invocation: its lines carry its Lambda context, `cold_start` (true on a function instance's first) and `keys`. */
  withInvocation<T>(context: Context, keys: Attributes, work: () => T): T {
    const invocation = { context, coldStart, keys: { ...keys } };
    coldStart = false;
    return invocations.run(invocation, work);
  },
};
