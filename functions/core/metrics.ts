/**
 * The service's own CloudWatch metrics, written as embedded metric format (EMF) log lines: no
 * API call on the hot path, CloudWatch Logs extracts them. The lines are made here, as
 * Powertools Metrics made them (same keys, same order): its serialization (key-collision checks,
 * stores, a console) was ~40% of the CPU a warm GET /document/{id} spends outside its store
 * call (bench/request-path.ts). The format: "Specification: Embedded metric format",
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html Every name,
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
 * An invocation's lines are kept in AsyncLocalStorage: the local runtime serves
 * concurrent requests through one module instance, and their metrics must not mix.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const SERVICE_NAME = 'documents';

/** CloudWatch units the metrics use (the names Powertools' MetricUnit gives them). */
const MetricUnit = { Count: 'Count', Milliseconds: 'Milliseconds', Bytes: 'Bytes' } as const;
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
  searchIndexLag: spec('SearchIndexLag', MetricUnit.Milliseconds, [], 'From a change’s write to the search index showing it.'),
} as const satisfies Record<string, MetricSpec>;

export type ServiceMetric = keyof typeof serviceMetrics;
/** What a route's line carries; every other metric is published with `service` alone. */
const routeMetrics = new Set(Object.values(serviceMetrics).flatMap((metric) => (metric.dimensions.length > 0 ? [metric.name] : [])));

/** An EMF line: the metadata, the dimensions' values and the metrics' values beside `_aws`. */
export interface EmfLine {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: Unit }[] }[];
  };
  [key: string]: unknown;
}

/** Where EMF lines go instead of stdout (the local runtime: discarded, or printed on request). */
export type MetricsSink = (line: EmfLine) => void;
let sink: MetricsSink | undefined;
export function setMetricsSink(replacement: MetricsSink | undefined): void {
  sink = replacement;
}

/** One line being filled: its dimensions (besides `service`), its own metadata, its metrics' values in the order first recorded. */
interface Line {
  dimensions: Record<string, string>;
  metadata: Record<string, string>;
  values: Map<string, { unit: Unit; values: number[] }>;
}

/** One invocation's lines: the route's, and the one with `service` alone (the route's, for a background function). */
interface Lines {
  route: Line;
  service: Line | undefined;
  metadata: Record<string, string>;
}
const current = new AsyncLocalStorage<Lines>();
/** True until a function instance's first invocation has started. */
let coldStart = true;

const newLine = (dimensions: Record<string, string> = {}, metadata: Record<string, string> = {}): Line => ({
  dimensions,
  metadata,
  values: new Map(),
});
const add = (line: Line, name: string, unit: Unit, value: number) => {
  const found = line.values.get(name);
  if (found) found.values.push(value);
  else line.values.set(name, { unit, values: [value] });
};

/** The EMF object of a line: metadata first, then the dimensions, then the values (one, or a list). */
function emfOf(line: Line, metadata: Record<string, string>): EmfLine {
  const dimensions = { service: SERVICE_NAME, ...line.dimensions };
  const emf: EmfLine = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || 'default_namespace',
          Dimensions: [Object.keys(dimensions)],
          Metrics: [...line.values].map(([Name, { unit }]) => ({ Name, Unit: unit })),
        },
      ],
    },
    ...metadata,
    ...line.metadata,
    ...dimensions,
  };
  for (const [name, { values }] of line.values) emf[name] = values.length === 1 ? values[0] : values;
  return emf;
}

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
  // The route key is metadata, not a dimension: searchable in Logs Insights, not a custom metric per route.
  const lines: Lines = { route: newLine({}, route ? { route } : {}), service: undefined, metadata: kept };
  if (route) {
    if (coldStart) add(lines.route, serviceMetrics.coldStart.name, serviceMetrics.coldStart.unit, 1);
  } else {
    lines.service = lines.route;
  }
  coldStart = false;
  try {
    return await current.run(lines, work);
  } finally {
    publish(lines.route, kept);
    if (lines.service && lines.service !== lines.route) publish(lines.service, kept);
  }
}

function publish(line: Line, metadata: Record<string, string>): void {
  if (line.values.size === 0) return;
  const emf = emfOf(line, metadata);
  if (sink) sink(emf);
  else process.stdout.write(`${JSON.stringify(emf)}\n`);
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
    add(lines.route, name, unit, value);
    return;
  }
  lines.service ??= newLine();
  add(lines.service, name, unit, value);
}
