/**
 * What a call costs on AWS, from what the bench measured: the prices, and the dollars per million
 * calls of each endpoint (and of file uploads and downloads) at the memory size configured now
 * (lib/function-settings.ts).
 *
 * On Lambda a function gets a share of a vCPU proportional to its memory (1 vCPU at 1,769 MB):
 * the CPU a call measured here is scaled by 1,769 / memory, the wait for DynamoDB kept as
 * measured; Lambda bills whole milliseconds, and the init of a cold start too.
 */
import { memorySizeOf, memorySizes } from '#lib/function-settings';
import type { CapacityRow, DurationRow } from './results';

/**
 * AWS list prices: us-east-1, on-demand, no free tier, no savings plans. Checked on the date
 * below against the pricing pages; re-check them when this date is old.
 */
export const prices = {
  checked: '2026-11-22',
  region: 'us-east-1',
  /** HTTP API, first 300 million requests a month (a request is metered per 512 KB). */
  httpApiPerMillion: 1.0,
  /** Lambda: per million requests, and per GB-second on arm64 (Graviton), first 7.5 billion GB-s. */
  lambdaRequestsPerMillion: 0.2,
  lambdaArmPerGbSecond: 0.0000133334,
  /** DynamoDB on-demand, since the 50% reduction of 1 November 2024. */
  dynamodbReadPerMillionUnits: 0.125,
  dynamodbWritePerMillionUnits: 0.625,
  /**
   * S3 Standard: storage per GB-month (first 50 TB), PUT/COPY/POST/LIST per 1,000 requests (an
   * UploadPart, CreateMultipartUpload and CompleteMultipartUpload are each one), GET per 1,000.
   * Data transfer out to the internet is left out, as for the API.
   */
  s3PerGbMonth: 0.023,
  s3PutPerThousand: 0.005,
  s3GetPerThousand: 0.0004,
  sources: [
    'https://aws.amazon.com/api-gateway/pricing/',
    'https://aws.amazon.com/lambda/pricing/',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    'https://aws.amazon.com/s3/pricing/',
  ],
} as const;

/** Lambda's CPU share grows with memory: one full vCPU at 1,769 MB (AWS Lambda docs). */
export const MB_PER_VCPU = 1769;
/** HTTP API, the Lambda request and one strongly consistent read of one item: the least a read costs per million. */
export const READ_FLOOR = prices.httpApiPerMillion + prices.lambdaRequestsPerMillion + prices.dynamodbReadPerMillionUnits;

/** Dollars per million calls for the Lambda time of `ms` at `mb` (billed in whole ms). */
const lambdaDollars = (mb: number, ms: number) => (mb / 1024) * (Math.ceil(ms) / 1000) * prices.lambdaArmPerGbSecond * 1e6;
/** A warm call's ms on Lambda at `mb`: its CPU at the size's vCPU share, plus the wait. */
const lambdaMs = (row: DurationRow, mb: number) => row.waitMs + row.cpuMs * Math.max(1, MB_PER_VCPU / mb);

export interface CostRow {
  endpoint: string;
  memorySize: number;
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

export function costs(durations: DurationRow[], capacity: CapacityRow[]): CostRow[] {
  return durations.map((row) => {
    const units = capacity.find((c) => c.endpoint === row.endpoint)!.aws;
    const memorySize = memorySizeOf(row.route);
    const ms = lambdaMs(row, memorySize);
    const parts = {
      httpApi: prices.httpApiPerMillion,
      lambdaRequests: prices.lambdaRequestsPerMillion,
      lambdaDuration: lambdaDollars(memorySize, ms),
      dynamodb: units.read * prices.dynamodbReadPerMillionUnits + units.write * prices.dynamodbWritePerMillionUnits,
    };
    const total = parts.httpApi + parts.lambdaRequests + parts.lambdaDuration + parts.dynamodb;
    return { endpoint: row.endpoint, memorySize, billedMs: Math.ceil(ms), readUnits: units.read, writeUnits: units.write, ...parts, total };
  });
}

/** Dollars per file operation: the API calls (priced as above), the Lambda time checking the bytes, the bucket's requests. */
export interface FileCostRow {
  operation: string;
  /** The API calls it makes (`n × ` when more than one). */
  calls: string;
  api: number;
  /** Seconds of Lambda reading the bytes back to hash them, and their dollars. */
  checkSeconds: number;
  check: number;
  s3: number;
  total: number;
}

/**
 * An upload of `bytes` in parts of `partSize`: POST /uploads, POST /uploads/{id}/parts for each
 * 100 parts past the first 100, POST /uploads/{id}/complete; in the bucket one PutObject (one
 * part) or a multipart upload (create, one PUT per part, complete), and one GET of the object (the service reads the bytes
 * back to check their SHA-256), that reading priced as Lambda time from the complete the files
 * scenario measured, per byte, all of it as CPU at the write functions' share of a vCPU.
 * A download: GET /document/{id}/content and the GET of its URL. An endpoint the cost scenario
 * has not measured is priced as the costliest one of its kind it has (`standIns` says which).
 */
export function fileCosts(cost: CostRow[], files: { partSize: number; mib: number; completeSeconds: number }) {
  const standIns = new Map<string, string>();
  const dollars = (endpoint: string) => {
    const kind = cost.filter((c) => c.endpoint.startsWith('GET ') === endpoint.startsWith('GET '));
    const row = cost.find((c) => c.endpoint === endpoint) ?? kind.reduce((a, b) => (b.total > a.total ? b : a));
    if (row.endpoint !== endpoint) standIns.set(endpoint, row.endpoint);
    return row.total / 1e6;
  };
  const row = (operation: string, calls: [string, number][], s3: number, checkSeconds = 0): FileCostRow => {
    const api = calls.reduce((total, [endpoint, n]) => total + n * dollars(endpoint), 0);
    const check = lambdaDollars(memorySizes.write, checkSeconds * 1000) / 1e6;
    const names = calls.filter(([, n]) => n > 0).map(([endpoint, n]) => (n > 1 ? `${n} × ${endpoint}` : endpoint));
    return { operation, calls: names.join(', '), api, checkSeconds, check, s3, total: api + check + s3 };
  };
  const upload = (operation: string, bytes: number) => {
    const parts = Math.max(1, Math.ceil(bytes / files.partSize));
    const puts = parts === 1 ? 1 : parts + 2; // one part: a PutObject; more: create, the parts, complete
    const s3 = (puts * prices.s3PutPerThousand + prices.s3GetPerThousand) / 1000;
    const checkSeconds = ((files.completeSeconds * bytes) / (files.mib * 1024 ** 2)) * Math.max(1, MB_PER_VCPU / memorySizes.write);
    const calls: [string, number][] = [
      ['POST /uploads', 1],
      ['POST /uploads/{id}/parts', Math.ceil(Math.max(0, parts - 100) / 100)],
      ['POST /uploads/{id}/complete', 1],
    ];
    return row(operation, calls, s3, checkSeconds);
  };
  const rows = [
    upload('uploads of one part (1 MiB)', 1024 ** 2),
    upload('uploads of 1 GiB', 1024 ** 3),
    row('downloads', [['GET /document/{id}/content', 1]], prices.s3GetPerThousand / 1000),
  ];
  return { rows, standIns: [...standIns].map(([endpoint, as]) => `${endpoint} as ${as}`) };
}

/**
 * What the stack itself costs, read from the synthesized templates (the parent's and its nested
 * stacks'): idle (nobody calls the API) and a month at a given load, with observability (alarms,
 * custom metrics, logs, X-Ray) apart, so that a change that adds cost shows in the fast tier
 * (test/unit/cost-model.test.ts holds the budgets). us-east-1 list prices, no free tier (its 10
 * alarms, 10 metrics, 3 dashboards, 5 GB of logs and 100,000 traces are left out on purpose).
 */
export const standingPrices = {
  checked: '2026-11-27',
  /** A standard-resolution alarm, per metric it reads (a metric-math alarm pays for each). */
  alarmMetricMonth: 0.1,
  dashboardMonth: 3,
  /** Custom metrics (EMF), first 10,000, per metric-month; billed by the hour a metric is emitted. */
  customMetricMonth: 0.3,
  secretMonth: 0.4,
  logsIngestedPerGb: 0.5,
  logsStoredPerGbMonth: 0.03,
  xrayPerMillionTraces: 5,
  sources: [
    'https://aws.amazon.com/cloudwatch/pricing/',
    'https://aws.amazon.com/secrets-manager/pricing/',
    'https://aws.amazon.com/xray/pricing/',
    'https://aws.amazon.com/lambda/pricing/',
  ],
} as const;

/**
 * Bytes of CloudWatch Logs per API request, by line (measured shapes, rounded up): the stage's
 * access log; the function's EMF line (../functions/core/metrics.ts); the handler's `request`
 * line, written at INFO only; Lambda's START, END and REPORT, written only when the system log
 * level is INFO or DEBUG (lib/stack/route-function.ts).
 */
export const logBytesPerRequest = { accessLog: 330, emf: 340, requestLine: 400, platform: 350 } as const;

/** The share of reads among the API's calls when pricing a month of requests (an assumption: documents are read more than written). */
export const READ_SHARE = 0.8;

type TemplateResource = { Type: string; Properties?: Record<string, any> };
export interface StackTemplate {
  Resources?: Record<string, TemplateResource>;
}

/** What the templates say that costs money. */
export interface StandingFacts {
  alarms: number;
  /** Metrics the alarms read (a metric-math alarm counts each of its metrics). */
  alarmMetrics: number;
  dashboards: number;
  secrets: number;
  /** Scheduled invocations a month (EventBridge `rate(n minutes)` rules). */
  scheduledInvocations: number;
  /** Lambda functions with active X-Ray tracing. */
  tracedFunctions: number;
  /** Whether the functions write the INFO `request` line and Lambda's platform lines (their LOG_LEVEL and system log level). */
  requestLine: boolean;
  platformLines: boolean;
  /** Custom metrics the service can emit: every metric of serviceMetrics by `service` (functions/core/metrics.ts). */
  customMetrics: number;
  /** The search cluster's secrets and minimum capacity (ACU): its floor, priced apart. */
  databaseSecrets: number;
  databaseMinCapacity: number;
}

const MINUTES_A_MONTH = 30 * 24 * 60;

/** Secrets a database cluster is attached to (its master credentials): the search index's floor. */
const databaseSecrets = (resources: { Type: string; Properties?: any }[]) =>
  resources.filter((resource) => resource.Type === 'AWS::SecretsManager::SecretTargetAttachment').length;

/** Aurora Serverless v2 ACU-hour (us-east-1, Aurora Standard): searchPrices.acuHour. */
const ACU_HOUR = 0.12;

/**
 * The search database's floor, apart from the idle budget (issue 30: "apart from a database floor
 * that a later feature documents"): its master secret, and its minimum capacity all month (0 ACU
 * with auto-pause when destroyable: storage only, not modelled here).
 */
export function searchDatabaseFloor(facts: StandingFacts): { lines: CostLine[]; total: number } {
  const lines: CostLine[] = [
    { item: 'database secrets', count: facts.databaseSecrets, dollars: facts.databaseSecrets * standingPrices.secretMonth },
    { item: 'minimum ACU, all month', count: facts.databaseMinCapacity, dollars: facts.databaseMinCapacity * ACU_HOUR * 730 },
  ];
  return { lines, total: lines.reduce((sum, line) => sum + line.dollars, 0) };
}

/**
 * The search database's prices and what a search is assumed to take of it (us-east-1, checked on
 * `prices.checked`; "Amazon Aurora pricing" and "RDS Data API pricing"):
 * - the RDS Data API: $0.35 per million requests (first billion a month), each request metered
 *   in 32 KB of payload: one statement a search (a page of 50 hits with snippets is under 32 KB);
 * - an ACU (Aurora capacity unit) is 2 GiB of memory "with corresponding compute": taken as a
 *   quarter of a vCPU (the memory-optimised r-class ratio of 8 GiB per vCPU that Serverless v2's
 *   256 ACU = 512 GiB matches), so a query that keeps one CPU busy `ms` takes 4 × `ms` ACU-ms;
 * - the marginal cost of a search is its ACU-seconds: capacity follows load above the floor
 *   (searchDatabaseFloor) in steps of 0.5 ACU, so this holds for a steady load, not for one search
 *   a minute, which the floor (or auto-pause) pays for;
 * - the query's CPU is measured on PGlite (PostgreSQL in WebAssembly, one thread), which is
 *   slower than native PostgreSQL: an upper bound, not an estimate of Aurora;
 * - storage: Aurora Standard $0.10 per GB-month, the only cost of a paused cluster (0 ACU).
 */
export const searchPrices = {
  dataApiPerMillion: 0.35,
  dataApiPayloadBytes: 32 * 1024,
  acuHour: 0.12,
  vcpuPerAcu: 0.25,
  storagePerGbMonth: 0.1,
  sources: ['https://aws.amazon.com/rds/aurora/pricing/', 'https://aws.amazon.com/rds/aurora/serverless/'],
} as const;

/** What one search takes, as measured (bench/scenarios/search.ts). */
export interface SearchCallFacts {
  /** The SQL's time on the database (one CPU busy), ms. */
  queryMs: number;
  /** The search function's billed time (its wait for DynamoDB and the database included), ms. */
  functionMs: number;
  /** DynamoDB read units (the caller's memberships). */
  readUnits: number;
  /** Bytes the Data API returns for it. */
  responseBytes: number;
}

/** Dollars per million searches: the API, the function, the memberships read, the Data API and the ACU-seconds. */
export function searchPerMillion(facts: SearchCallFacts, memoryMb = memorySizeOf('Search')): { lines: CostLine[]; total: number } {
  const acuSeconds = (facts.queryMs / 1000) * (1 / searchPrices.vcpuPerAcu);
  const dataApiRequests = Math.max(1, Math.ceil(facts.responseBytes / searchPrices.dataApiPayloadBytes));
  const lines: CostLine[] = [
    { item: 'HTTP API requests', count: 1, dollars: prices.httpApiPerMillion },
    { item: 'Lambda requests', count: 1, dollars: prices.lambdaRequestsPerMillion },
    { item: `Lambda ms (${memoryMb} MB)`, count: Math.ceil(facts.functionMs), dollars: lambdaDollars(memoryMb, facts.functionMs) },
    { item: 'DynamoDB read units', count: facts.readUnits, dollars: facts.readUnits * prices.dynamodbReadPerMillionUnits },
    { item: 'Data API requests (32 KB each)', count: dataApiRequests, dollars: dataApiRequests * searchPrices.dataApiPerMillion },
    { item: 'ACU-seconds', count: acuSeconds, dollars: acuSeconds * 1e6 * (searchPrices.acuHour / 3600) },
  ];
  return { lines, total: lines.reduce((sum, line) => sum + line.dollars, 0) };
}

/** A month of an auto-paused search database (minimum 0 ACU): its secret and its storage, no compute. */
export function searchIdleCost(facts: Pick<StandingFacts, 'databaseSecrets'>, storageGb: number): { lines: CostLine[]; total: number } {
  const lines: CostLine[] = [
    { item: 'database secrets', count: facts.databaseSecrets, dollars: facts.databaseSecrets * standingPrices.secretMonth },
    { item: 'storage (GB-month)', count: storageGb, dollars: storageGb * searchPrices.storagePerGbMonth },
  ];
  return { lines, total: lines.reduce((sum, line) => sum + line.dollars, 0) };
}

export function standingFactsOf(templates: readonly StackTemplate[], customMetrics: number): StandingFacts {
  const resources = templates.flatMap((template) => Object.values(template.Resources ?? {}));
  const ofType = (type: string) => resources.filter((resource) => resource.Type === type);
  const alarms = ofType('AWS::CloudWatch::Alarm');
  const functions = ofType('AWS::Lambda::Function').filter((fn) => fn.Properties?.Environment?.Variables?.POWERTOOLS_METRICS_NAMESPACE);
  const levels = new Set(functions.map((fn) => fn.Properties?.Environment?.Variables?.LOG_LEVEL ?? 'INFO'));
  const systemLevels = new Set(functions.map((fn) => fn.Properties?.LoggingConfig?.SystemLogLevel ?? 'INFO'));
  return {
    alarms: alarms.length,
    alarmMetrics: alarms.reduce(
      (sum, alarm) =>
        sum +
        (alarm.Properties?.Metrics ? alarm.Properties.Metrics.filter((query: { MetricStat?: unknown }) => query.MetricStat).length : 1),
      0,
    ),
    dashboards: ofType('AWS::CloudWatch::Dashboard').length,
    // The search cluster's master secret is part of the database's floor, priced apart (searchDatabaseFloor).
    secrets: ofType('AWS::SecretsManager::Secret').length - databaseSecrets(resources),
    databaseSecrets: databaseSecrets(resources),
    databaseMinCapacity: ofType('AWS::RDS::DBCluster').reduce(
      (sum, cluster) => sum + (cluster.Properties?.ServerlessV2ScalingConfiguration?.MinCapacity ?? 0),
      0,
    ),
    scheduledInvocations: ofType('AWS::Events::Rule').reduce((sum, rule) => {
      const rate = /^rate\((\d+) minutes?\)$/.exec(rule.Properties?.ScheduleExpression ?? '');
      return sum + (rate ? MINUTES_A_MONTH / Number(rate[1]) : 0);
    }, 0),
    tracedFunctions: functions.filter((fn) => fn.Properties?.TracingConfig?.Mode === 'Active').length,
    requestLine: levels.has('INFO') || levels.has('DEBUG'),
    platformLines: systemLevels.has('INFO') || systemLevels.has('DEBUG'),
    customMetrics,
  };
}

export interface CostLine {
  item: string;
  count: number;
  dollars: number;
}

/**
 * A month with no API call: alarms, dashboards and secrets; the scheduled sweeper's invocations
 * (requests, ~1 s at 512 MB each, a few log lines) are priced too. Nothing else bills while
 * idle: on-demand DynamoDB and S3 bill what they store (nothing, or the data), custom metrics
 * only the hours they are emitted, the stream mapping's polling is free.
 */
export function idleCost(facts: StandingFacts): { lines: CostLine[]; total: number } {
  const sweep = facts.scheduledInvocations;
  const lines: CostLine[] = [
    { item: 'alarm metrics', count: facts.alarmMetrics, dollars: facts.alarmMetrics * standingPrices.alarmMetricMonth },
    { item: 'dashboards', count: facts.dashboards, dollars: facts.dashboards * standingPrices.dashboardMonth },
    { item: 'secrets', count: facts.secrets, dollars: facts.secrets * standingPrices.secretMonth },
    {
      item: 'scheduled invocations',
      count: sweep,
      dollars:
        (sweep * prices.lambdaRequestsPerMillion) / 1e6 +
        sweep * 0.5 * 1 * prices.lambdaArmPerGbSecond +
        ((sweep * 1024) / 1024 ** 3) * standingPrices.logsIngestedPerGb,
    },
  ];
  return { lines, total: lines.reduce((sum, line) => sum + line.dollars, 0) };
}

/** Lambda's X-Ray sampling (not configurable for functions): the first request each second, then 5%. */
const tracesPerDay = (requestsPerDay: number) => {
  const reservoir = Math.min(requestsPerDay, 86_400);
  return reservoir + 0.05 * (requestsPerDay - reservoir);
};

/**
 * A month at `requestsPerDay`: the requests (`perMillion`: dollars per million API calls, from
 * `costs()` and READ_SHARE) and observability: alarms, every custom metric emitted all month,
 * the logs each request writes (ingested, kept a month), and X-Ray traces when functions are traced.
 */
export function monthlyCost(facts: StandingFacts, requestsPerDay: number, perMillion: number) {
  const requests = requestsPerDay * 30;
  const bytes =
    logBytesPerRequest.accessLog +
    logBytesPerRequest.emf +
    (facts.requestLine ? logBytesPerRequest.requestLine : 0) +
    (facts.platformLines ? logBytesPerRequest.platform : 0);
  const gigabytes = (requests * bytes) / 1024 ** 3;
  const observability: CostLine[] = [
    { item: 'alarm metrics', count: facts.alarmMetrics, dollars: facts.alarmMetrics * standingPrices.alarmMetricMonth },
    { item: 'dashboards', count: facts.dashboards, dollars: facts.dashboards * standingPrices.dashboardMonth },
    { item: 'custom metrics', count: facts.customMetrics, dollars: facts.customMetrics * standingPrices.customMetricMonth },
    {
      item: `logs (GB, ${bytes} bytes a request)`,
      count: gigabytes,
      dollars: gigabytes * (standingPrices.logsIngestedPerGb + standingPrices.logsStoredPerGbMonth),
    },
    {
      item: 'X-Ray traces',
      count: facts.tracedFunctions > 0 ? tracesPerDay(requestsPerDay) * 30 : 0,
      dollars: facts.tracedFunctions > 0 ? ((tracesPerDay(requestsPerDay) * 30) / 1e6) * standingPrices.xrayPerMillionTraces : 0,
    },
  ];
  const requestDollars = (requests / 1e6) * perMillion + facts.secrets * standingPrices.secretMonth;
  const observabilityDollars = observability.reduce((sum, line) => sum + line.dollars, 0);
  const total = requestDollars + observabilityDollars;
  return { requests: requestDollars, observability, observabilityDollars, total, observabilityShare: observabilityDollars / total };
}

/** Dollars per million API calls at READ_SHARE reads, from the bench's per-endpoint costs. */
export function perMillionCalls(rows: readonly CostRow[]): number {
  const mean = (list: readonly CostRow[]) => list.reduce((sum, row) => sum + row.total, 0) / list.length;
  const reads = rows.filter((row) => row.endpoint.startsWith('GET '));
  const writes = rows.filter((row) => !row.endpoint.startsWith('GET '));
  return READ_SHARE * mean(reads) + (1 - READ_SHARE) * mean(writes);
}
