/**
 * The service's own CloudWatch metrics, written as embedded metric format (EMF) log lines by
 * Powertools Metrics: no API call on the hot path, CloudWatch Logs extracts them. Every name,
 * unit and dimension is in `serviceMetrics` below; the stack's alarms and dashboard
 * (lib/stack/monitoring.ts) and docs/operations.md read the same table.
 *
 * Each invocation publishes what it recorded when it ends (`withMetrics`), by `service` alone:
 * every distinct name × dimension values is a custom metric ($0.30 a month each), so a `route`
 * dimension multiplied the route metrics by the number of routes (bench/cost-model.ts). The route
 * key (`GET /document/{id}`) is on a route's line as metadata: Logs Insights still splits by it,
 * and API Gateway's access log has every request. A route that records a business event
 * publishes it on a second line, without the route.
 * The namespace is the stack's (POWERTOOLS_METRICS_NAMESPACE, from the deployment config).
 *
 * A Metrics instance per invocation, kept in AsyncLocalStorage: the local runtime serves
 * concurrent requests through one module instance, and their metrics must not mix.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

export const SERVICE_NAME = 'documents';

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];
interface MetricSpec {
  readonly name: string;
  readonly unit: Unit;
  /** `['route']`: on a route's line (with the route key as metadata); `[]`: on the line of `service` alone. */
  readonly dimensions: readonly 'route'[];
  readonly description: string;
}

const perRoute = ['route'] as const;
const spec = (name: string, unit: Unit, dimensions: MetricSpec['dimensions'], description: string): MetricSpec => ({
  name,
  unit,
  dimensions,
  description,
});

/** Every metric the functions emit. */
export const serviceMetrics = {
  // Per route: one of the three answers, the handler's own duration, and a cold start.
  answered2xx: spec('Answers2xx', MetricUnit.Count, perRoute, 'Requests answered with a 2xx status.'),
  answered4xx: spec('Answers4xx', MetricUnit.Count, perRoute, 'Requests answered with a 4xx status (the caller’s mistake).'),
  answered5xx: spec('Answers5xx', MetricUnit.Count, perRoute, 'Requests answered with a 5xx status (ours: 500, 503).'),
  handlerDuration: spec('HandlerDuration', MetricUnit.Milliseconds, perRoute, 'Time the handler took, middleware included.'),
  coldStart: spec('ColdStart', MetricUnit.Count, perRoute, 'The first invocation of a route function instance.'),
  // Business events, counted by the worker from the change feed (each numbered change once;
  // a retried batch may count one again) and, for uploads, by the upload finalising step.
  repositoriesCreated: spec('RepositoriesCreated', MetricUnit.Count, [], 'Repositories created.'),
  foldersCreated: spec('FoldersCreated', MetricUnit.Count, [], 'Folders created.'),
  documentsCreated: spec('DocumentsCreated', MetricUnit.Count, [], 'Documents created.'),
  itemsTrashed: spec('ItemsTrashed', MetricUnit.Count, [], 'Documents and folders moved to the trash.'),
  itemsPurged: spec('ItemsPurged', MetricUnit.Count, [], 'Documents and folders purged from the trash (emptied or expired).'),
  uploadsCompleted: spec('UploadsCompleted', MetricUnit.Count, [], 'Uploads finalised (the files feature).'),
  uploadsFailed: spec('UploadsFailed', MetricUnit.Count, [], 'Uploads the finalising step refused or failed (the files feature).'),
  bytesUploaded: spec('BytesUploaded', MetricUnit.Bytes, [], 'Bytes of finalised uploads (the files feature).'),
  // The background worker.
  tasksCompleted: spec('TasksCompleted', MetricUnit.Count, [], 'Background tasks whose last step committed.'),
  tasksRetried: spec('TasksRetried', MetricUnit.Count, [], 'Task steps tried again after a condition failed (another run moved on).'),
  tasksFailed: spec('TasksFailed', MetricUnit.Count, [], 'Task runs that threw: the stream retries them, or the sweeper.'),
  feedLag: spec('FeedLag', MetricUnit.Milliseconds, [], 'From a change’s write to its numbered record reaching the worker.'),
} as const satisfies Record<string, MetricSpec>;

export type ServiceMetric = keyof typeof serviceMetrics;
/** What a route's line carries; every other metric is published with `service` alone. */
const routeMetrics = new Set(Object.values(serviceMetrics).flatMap((metric) => (metric.dimensions.length > 0 ? [metric.name] : [])));

/** An EMF object as Powertools serializes it. */
export type EmfLine = ReturnType<Metrics['serializeMetrics']>;

/** Where EMF lines go instead of stdout (the local runtime: discarded, or printed on request). */
export type MetricsSink = (line: EmfLine) => void;
let sink: MetricsSink | undefined;
export function setMetricsSink(replacement: MetricsSink | undefined): void {
  sink = replacement;
}

/** One invocation's lines: the route's, and the one with `service` alone (the route's, for a background function). */
interface Lines {
  route: Metrics;
  service: Metrics | undefined;
  metadata: Record<string, string>;
}
const current = new AsyncLocalStorage<Lines>();
/** True until a function instance's first invocation has started. */
let coldStart = true;

/**
 * Lines are reused once published: making a Metrics instance (its console, its configuration
 * from the environment) cost ~0.3 ms of CPU, about a tenth of a warm request (bench/tracing.ts).
 * On Lambda one invocation at a time runs, so one or two instances serve them all.
 */
const idle: Metrics[] = [];
const newLine = (metadata: Record<string, string>) => {
  const metrics = idle.pop() ?? new Metrics({ serviceName: SERVICE_NAME });
  for (const [key, value] of Object.entries(metadata)) metrics.addMetadata(key, value);
  return metrics;
};
const release = (metrics: Metrics) => {
  metrics.clearMetrics();
  metrics.clearDimensions();
  metrics.clearMetadata();
  idle.push(metrics);
};

/**
 * Runs one invocation with its own metrics, published when it ends (thrown or not). `route`:
 * API Gateway's route key, unset for a background function. `metadata` goes into each line
 * without becoming a dimension (searchable in Logs Insights, free): the correlation id, the caller.
 */
export async function withMetrics<T>(
  route: string | undefined,
  metadata: Record<string, string | undefined>,
  work: () => Promise<T>,
): Promise<T> {
  const kept = Object.fromEntries(Object.entries(metadata).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const lines: Lines = { route: newLine(kept), service: undefined, metadata: kept };
  if (route) {
    // Metadata, not a dimension: searchable in Logs Insights, not a custom metric per route.
    lines.route.addMetadata('route', route);
    if (coldStart) lines.route.addMetric(serviceMetrics.coldStart.name, serviceMetrics.coldStart.unit, 1);
  } else {
    lines.service = lines.route;
  }
  coldStart = false;
  try {
    return await current.run(lines, work);
  } finally {
    publish(lines.route);
    if (lines.service && lines.service !== lines.route) publish(lines.service);
  }
}

function publish(metrics: Metrics): void {
  try {
    if (!metrics.hasStoredMetrics()) return;
    if (sink) sink(metrics.serializeMetrics());
    else metrics.publishStoredMetrics();
  } finally {
    release(metrics);
  }
}

/**
 * Adds a value to the current invocation's metrics, on the line its dimensions say. Outside an
 * invocation (a script, a test calling store code directly) it is dropped.
 */
export function recordMetric(metric: ServiceMetric, value = 1): void {
  const lines = current.getStore();
  if (!lines) return;
  const { name, unit } = serviceMetrics[metric];
  if (routeMetrics.has(name)) {
    lines.route.addMetric(name, unit, value);
    return;
  }
  lines.service ??= newLine(lines.metadata);
  lines.service.addMetric(name, unit, value);
}
