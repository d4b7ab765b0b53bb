/**
 * What `npm run bench` measured, as results.json keeps it: scenarios write these numbers,
 * report.ts renders them, budgets.ts judges them. Types and two names; it imports nothing.
 */

/** Requests per second, latency in ms; errors: wrong statuses, transport errors, timeouts, thrown calls. */
export type Latency = { rps: number; p50: number; p99: number; requests: number; errors: number };
/** Capacity as AWS bills it (recorder.ts) and as DynamoDB Local reports it. */
export type Units = { rru: number; wru: number; localRcu: number; localWcu: number };
type Sampled = { p50: number; p99: number; samples: number };
type ReadWrite = { read: number; write: number };
type Growth = { latencyRatio: number; capacityRatio: number };

export interface CapacityRow {
  endpoint: string;
  /** `A ∥ B`: sent together (one round trip); `A → B`: one after the other. */
  requests: string;
  roundTrips: number;
  minimumRoundTrips: number;
  items: { reads: string[]; writes: string[] };
  local: ReadWrite;
  aws: ReadWrite;
  minimum: ReadWrite;
}

/** ratio: service rps / baseline rps; the budgeted pair's three rounds in `ratios` (the median round kept). */
export type ThroughputRow = {
  endpoint: string;
  concurrency: number;
  service: Latency;
  baseline: Latency;
  ratio: number;
  ratios?: number[];
};

/** ratio: big p50 / small p50. */
export type ScaleResult = {
  small: Sampled & { documents: number };
  big: Sampled & { documents: number };
  deepPage: Sampled & { position: number };
  ratio: number;
  seedSeconds: number;
};

/** Medians over `runs` fresh processes: from process start to the module loaded, and the import() alone; loadRatio: / the empty handler's. */
export type ColdStartRow = {
  name: string;
  handler: string;
  bytes: number;
  gzipBytes: number;
  loadMs: number;
  importMs: number;
  loadRatio: number;
  /** The floor it is measured against (bench/floors/), and its load / the floor's. */
  floor?: string;
  floorRatio?: number;
  runs: number;
};

/** Warm calls of a function: CPU per call (mean, p99), the median wait for DynamoDB (wall − CPU), the first call of the process. */
export type DurationRow = {
  endpoint: string;
  route: string;
  cpuMs: number;
  cpuP99: number;
  waitMs: number;
  firstMs: number;
  calls: number;
};

export interface FeedResult {
  commit: string;
  clients: number;
  seconds: number;
  /** follower: updates committed in the run, changes seen, seen twice, out of version order. */
  rounds: { before: Latency; now: Latency; follower: { writes: number; seen: number; duplicates: number; outOfOrder: number } }[];
  writesPerSecond: { before: number; now: number };
  /** Per change: the pending change in the write's transaction; the worker's numbering transactions and counter reads. */
  perChange: { changes: number; writeSide: { wru: number }; worker: { wru: number; rru: number; transactions: number } };
}

export type SharingCase = { label: string; p50: number; p99: number; requests: number; rru: number; dynamodb: string };
export type SharingResult = { document: Growth & { one: SharingCase; many: SharingCase }; seedSeconds: number };

export type MoveCase = Units & { label: string; p50: number; max: number; samples: number; dynamodb: string };
export interface LifecycleResult {
  move: Growth & { documents: number; folders: number; big: MoveCase; empty: MoveCase };
  /** Each step: its answer, and the time from the request until the worker had settled; what was checked then. */
  bound: {
    documents: number;
    folders: number;
    phases: { name: string; answerMs: number; seconds: number; itemsPerSecond: number; checked: string; complete: boolean }[];
  };
  /** What was not as it must be once the worker had settled. */
  problems: string[];
  seedSeconds: number;
}

/** MB/s (10^6 bytes a second) through the service's flow and straight to the S3 emulator (medians); ratio: the median of the rounds' service / direct. */
type FilesSides = { service: number; direct: number };
export interface FilesResult {
  mib: number;
  parallel: number;
  partSize: number;
  partCount: number;
  rounds: { upload: FilesSides; download: FilesSides; rssMb: FilesSides; completeSeconds: number }[];
  upload: FilesSides & { ratio: number };
  download: FilesSides & { ratio: number };
  /** POST /uploads/{id}/complete until the Document (the service checking the bytes), median seconds. */
  completeSeconds: number;
  /** The service process's peak RSS growth during an upload, the largest of the rounds, MB. */
  rssGrowthMb: FilesSides;
}

export interface Results {
  /** Length of each measured run, and of the whole bench. */
  seconds: number;
  durationSeconds: number;
  capacity: CapacityRow[];
  throughput: ThroughputRow[];
  scale: ScaleResult;
  coldStart: ColdStartRow[];
  durations: DurationRow[];
  feed: FeedResult;
  sharing: SharingResult;
  lifecycle: LifecycleResult;
  files: FilesResult;
  /** Absent from results written before the scenario existed. */
  hashing?: HashingResult;
  links?: LinkLatencyRow[];
  webApp?: WebAppResult;
  search?: SearchResult;
}

/** bench/scenarios/search.ts: latencies in ms; rps: searches a second. */
export interface SearchResult {
  documents: number;
  longDocuments: number;
  pdfs: number;
  /** The index seeded with the indexer's write: documents a second; the table's size, bytes. */
  build: { seconds: number; perSecond: number; tableBytes: number };
  /** One at a time, the queries taking turns: through the local stack and the same SQL straight on PGlite. */
  oneAtATime: { service: { p50: number; p95: number; samples: number }; bare: { p50: number; p95: number; samples: number } };
  /** The same runs, each query alone. */
  perQuery?: { q: string; service: { p50: number; p95: number; samples: number }; bare: { p50: number; p95: number; samples: number } }[];
  /** The common words alone, through the stack. */
  commonWords: { p50: number; p95: number; samples: number };
  /** `concurrency` at a time: searches a second on each side, and service / bare. */
  throughput: { concurrency: number; service: number; bare: number; ratio: number; errors: number };
  /** Write → found by GET /search, polled every 20 ms, ms. */
  freshness: { kind: string; p50: number; p95: number; max: number; samples: number }[];
  /** Documents written to the table and indexed by the worker from the stream; then the rebuild of the whole table. */
  stream: { documents: number; seconds: number; perSecond: number };
  /** withoutChanges: of the items, documents written to the table without their changes, which only the rebuild indexes. */
  reindex: { items: number; withoutChanges?: number; seconds: number; perSecond: number; projected100kSeconds: number };
  cost: { perMillion: number; lines: { item: string; dollars: number }[]; idleMonth: number; storageGb: number };
  queries: string[];
}

/** bench/scenarios/web-app.ts: the web app in Chromium (ms from the navigation's start; frames in ms; MB/s end to end). */
export interface WebAppResult {
  runs: number;
  folder: { items: number; firstRowsMs: number; allMs: number; rounds: { firstRowsMs: number; allMs: number }[] };
  scroll: { items: number; loadMs: number; steps: number; frameP50: number; frameP95: number; frameMax: number; maxRows: number };
  /** The upload panel against the CLI on one file; ratio: the median of the rounds' app / CLI. */
  upload?: { mib: number; rounds: { app: number; cli: number }[]; app: number; cli: number; ratio: number };
}

/** bench/scenarios/links.ts: a link endpoint's latency, one request at a time (ms). */
export type LinkLatencyRow = { endpoint: string; p50: number; p99: number; requests: number };

/** bench/scenarios/hashing.ts: MB/s of the verify task's resumable SHA-256 against OpenSSL's; a link password check. */
export interface HashingResult {
  mib: number;
  chunkKiB: number;
  resumableMBs: number;
  opensslMBs: number;
  ratio: number;
  workerMemoryMb: number;
  fiveTiB: { hours: number; gbSeconds: number; dollars: number };
  scrypt: { N: number; r: number; p: number; p50Ms: number; p95Ms: number; checks: number };
}

/** The read the budgets single out, and the concurrency its throughput budget is measured at. */
export const PROFILED = { endpoint: 'GET /document/{id}', concurrency: 32 } as const;
/** The cold-start reference: a handler that does nothing, bundled like every real one. */
export const EMPTY = 'empty handler';
/** The names of the cold-start floors: a handler importing a route's AWS clients and nothing else (bench/floors/). */
export const FLOOR_PREFIX = 'floor: ';
