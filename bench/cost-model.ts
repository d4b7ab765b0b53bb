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
