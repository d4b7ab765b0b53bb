/** The budgets the service is held to, and each one's verdict, from the results alone. */
import { costs, prices, READ_FLOOR } from './cost-model';
import { f, kb, n, usd } from './markdown';
import { type CapacityRow, EMPTY, FLOOR_PREFIX, PROFILED, type Results } from './results';

export const BUDGETS = {
  documentReadRatio: 0.7,
  scaleRatio: 1.2,
  bundleBytes: 300_000,
  loadRatio: 2,
  documentReadDollars: 1.5,
  /** Latency or capacity of a large case against the small one. */
  growthRatio: 1.2,
  /** Files: through the service / straight to the bucket, and the service's RSS growth (MB) while a file goes through. */
  filesRatio: 0.9,
  filesRssMb: 50,
};

export interface Budget {
  budget: string;
  measured: string;
  verdict: 'met' | 'missed' | 'at the floor';
  /** Why it is missed (or at the floor), and the section of results.md that shows it. */
  why?: string;
}

const line = (budget: string, measured: string, met: boolean, why?: string): Budget => ({
  budget,
  measured,
  verdict: met ? 'met' : 'missed',
  ...(met || !why ? {} : { why }),
});
const growth = (subject: string, against: string, ratio: number, measured: string) =>
  line(`${subject} ≤ ${BUDGETS.growthRatio}× ${against}`, `${f(ratio)}× (${measured})`, ratio <= BUDGETS.growthRatio);

/** One round trip each: met, or at the floor when each over one is at its minimum. */
function roundTrips(budget: string, rows: CapacityRow[], why: string): Budget {
  const over = rows.filter((row) => row.roundTrips > 1);
  const byTrips = [...new Set(over.map((row) => row.roundTrips))].map(
    (trips) => `; ${trips} for ${over.flatMap((row) => (row.roundTrips === trips ? [row.endpoint] : [])).join(', ')}`,
  );
  const floor = over.every((row) => row.roundTrips <= row.minimumRoundTrips);
  return {
    budget,
    measured: `1 for ${rows.length - over.length} of ${rows.length}${byTrips.join('')}`,
    verdict: !over.length ? 'met' : floor ? 'at the floor' : 'missed',
    ...(over.length ? { why } : {}),
  };
}

export function budgets(r: Results): Budget[] {
  const document = r.throughput.find((row) => row.endpoint === PROFILED.endpoint && row.concurrency === PROFILED.concurrency)!;
  const handlers = r.coldStart.filter((row) => row.name !== EMPTY && !row.name.startsWith(FLOOR_PREFIX));
  const biggest = handlers.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const slowest = handlers.reduce((a, b) => (b.loadRatio > a.loadRatio ? b : a));
  const documentCost = costs(r.durations, r.capacity).find((row) => row.endpoint === PROFILED.endpoint)!;
  const { document: shared } = r.sharing;
  const { move, bound, problems } = r.lifecycle;
  const { files } = r;
  return [
    roundTrips(
      'Every read endpoint: 1 DynamoDB round trip, authorization included',
      r.capacity.filter((row) => row.endpoint.startsWith('GET')),
      'GET / reads a page of your memberships (Query), then those repositories (BatchGetItem): a membership holds your role and the order by name, not the repository as its owners change it; ' +
        "a link's entry names its link, not its role or document; opening a share link needs the link once more after a password check (the answer is given only if the link is not locked by then), and large text's content item is named by the document item: §2, §11",
    ),
    roundTrips(
      'Every write: 1 round trip',
      r.capacity.filter((row) => !row.endpoint.startsWith('GET')),
      'an id names neither its entry nor the other items a change must name (membership, trash record): §2',
    ),
    line(
      `${PROFILED.endpoint} ≥ ${BUDGETS.documentReadRatio}× the baseline's requests/s at concurrency ${PROFILED.concurrency}`,
      `${f(document.ratio)}× (${f(document.service.rps, 0)} vs ${f(document.baseline.rps, 0)} req/s)`,
      document.ratio >= BUDGETS.documentReadRatio,
      'the local gateway and the handler stack: §1',
    ),
    line(
      `List page latency at 50,000 documents ≤ ${BUDGETS.scaleRatio}× that at 100`,
      `${f(r.scale.ratio)}× (p50 ${f(r.scale.big.p50)} vs ${f(r.scale.small.p50)} ms)`,
      r.scale.ratio <= BUDGETS.scaleRatio,
    ),
    line(
      `Each bundle ≤ ${BUDGETS.bundleBytes / 1000} KB minified`,
      `largest ${kb(biggest.bytes)} (${biggest.name})`,
      biggest.bytes <= BUDGETS.bundleBytes,
      "reads are within it; writes add Powertools' idempotency with its JMESPath interpreter (~38 KB) and Unicode case folding for names (~23 KB), the file routes the S3 client (150-175 KB with its checksums and presigner); the AWS SDK is most of every bundle: §4",
    ),
    line(
      `Module load ≤ ${BUDGETS.loadRatio}× the empty handler's`,
      `slowest ${f(slowest.loadRatio)}× (${slowest.name}, ${f(slowest.loadMs, 1)} ms)`,
      slowest.loadRatio <= BUDGETS.loadRatio,
      "compiling the bundle grows with its size (a CPU profile of a 385 KB one: 17 ms of its 50 ms import), then the built-ins the SDK loads (7 ms) and the modules' own start (12 ms); the AWS SDK, a fixed part of the design, is most of the bytes: §4",
    ),
    line(
      `≤ $${f(BUDGETS.documentReadDollars)} per million ${PROFILED.endpoint}`,
      `${usd(documentCost.total)} per million (${documentCost.billedMs} ms billed at ${documentCost.memorySize} MB)`,
      documentCost.total <= BUDGETS.documentReadDollars,
      `HTTP API + Lambda requests + two strongly consistent reads (the document, the caller's role) already cost ${usd(READ_FLOOR + prices.dynamodbReadPerMillionUnits)}: §5`,
    ),
    line(
      `Upload of ${files.mib} MiB through the service's flow ≥ ${BUDGETS.filesRatio}× straight to the bucket`,
      `${f(files.upload.ratio)}× (${f(files.upload.service, 0)} vs ${f(files.upload.direct, 0)} MB/s)`,
      files.upload.ratio >= BUDGETS.filesRatio,
      'the flow adds POST /uploads and a complete that reads the bytes back to check their SHA-256: §6',
    ),
    line(
      `Download through GET /document/{id}/content's redirect ≥ ${BUDGETS.filesRatio}× a GetObject`,
      `${f(files.download.ratio)}× (${f(files.download.service, 0)} vs ${f(files.download.direct, 0)} MB/s)`,
      files.download.ratio >= BUDGETS.filesRatio,
      '§6',
    ),
    line(
      `The service's RSS while ${files.mib} MiB go through it ≤ +${BUDGETS.filesRssMb} MB`,
      `+${f(files.rssGrowthMb.service, 0)} MB (straight to the emulator: +${f(files.rssGrowthMb.direct, 0)} MB)`,
      files.rssGrowthMb.service <= BUDGETS.filesRssMb,
      'the S3 emulator runs in the service process: §6',
    ),
    growth(
      'GET /document/{id} latency, caller in 1,000 repositories',
      'in 1',
      shared.latencyRatio,
      `p50 ${f(shared.many.p50)} vs ${f(shared.one.p50)} ms`,
    ),
    growth(
      'GET /document/{id} capacity, caller in 1,000 repositories',
      'in 1',
      shared.capacityRatio,
      `${shared.many.rru} vs ${shared.one.rru} RRU`,
    ),
    growth(
      `PUT /folder (move) latency, ${n(move.documents)} documents below`,
      'an empty folder',
      move.latencyRatio,
      `p50 ${f(move.big.p50)} vs ${f(move.empty.p50)} ms`,
    ),
    growth(
      `PUT /folder (move) capacity, ${n(move.documents)} documents below`,
      'an empty folder',
      move.capacityRatio,
      `${move.big.rru} RRU / ${move.big.wru} WRU vs ${move.empty.rru} / ${move.empty.wru}`,
    ),
    line(
      `Deleting, restoring and purging a folder with ${n(move.documents)} documents below: everything below follows once the worker settles`,
      bound.phases.map((p) => `${p.name} ${f(p.seconds, 1)} s (${p.itemsPerSecond} items/s)`).join(', '),
      problems.length === 0,
      problems.join('; '),
    ),
  ];
}
