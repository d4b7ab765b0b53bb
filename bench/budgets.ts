/** The budgets the service is held to, and each one's verdict, from the results alone. */
import { costs, memoryChoices, prices, READ_FLOOR } from './cost-model';
import { f, kb, usd } from './markdown';
import { type CapacityRow, EMPTY, PROFILED, type Results } from './results';

export const BUDGETS = {
  documentReadRatio: 0.7,
  scaleRatio: 1.2,
  bundleBytes: 300_000,
  loadRatio: 2,
  documentReadDollars: 1.5,
  growthRatio: 1.2,
  /** Files: through the service / straight to the bucket, and the service's RSS growth (MB) while a file goes through. */
  filesRatio: 0.9,
  filesRssMb: 50,
};

type Verdict = 'met' | 'missed' | 'at the floor';
export interface Budget {
  budget: string;
  measured: string;
  verdict: Verdict;
  why?: string;
}

const line = (budget: string, measured: string, met: boolean, why?: string): Budget => ({
  budget,
  measured,
  verdict: met ? 'met' : 'missed',
  ...(met || !why ? {} : { why }),
});
/** A ratio that must not grow: latency or capacity of the large case against the small one. */
const growth = (subject: string, against: string, ratio: number, measured: string) =>
  line(`${subject} ≤ ${BUDGETS.growthRatio}× ${against}`, `${f(ratio)}× (${measured})`, ratio <= BUDGETS.growthRatio);

/** One round trip each: met, or at the floor when each over one is at its minimum. */
function roundTrips(budget: string, rows: CapacityRow[], why: string): Budget {
  const over = rows.filter((row) => row.roundTrips > 1);
  const byTrips = [...new Set(over.map((row) => row.roundTrips))].map(
    (trips) =>
      `; ${trips} for ${over
        .filter((row) => row.roundTrips === trips)
        .map((row) => row.endpoint)
        .join(', ')}`,
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
  const handlers = r.coldStart.filter((row) => row.name !== EMPTY && !row.handler.startsWith('bench/'));
  const biggest = handlers.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const slowest = handlers.reduce((a, b) => (b.loadRatio > a.loadRatio ? b : a));
  const documentCost = costs(r.durations, r.capacity).find((row) => row.endpoint === PROFILED.endpoint)!;
  const kinds = memoryChoices(r.durations, r.coldStart);
  const list = [
    roundTrips(
      'Every read endpoint: 1 DynamoDB round trip, authorization included',
      r.capacity.filter((row) => row.endpoint.startsWith('GET')),
      'GET / reads a page of your memberships (Query), then those repositories (BatchGetItem): a membership holds your role and the order by name, not the repository as its owners change it: §2',
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
      "writes carry what reads do not: Powertools' idempotency with its JMESPath interpreter (~45 KB) and Unicode case folding for names (~24 KB); the AWS SDK is most of every bundle: §4",
    ),
    line(
      `Module load ≤ ${BUDGETS.loadRatio}× the empty handler's`,
      `slowest ${f(slowest.loadRatio)}× (${slowest.name}, ${f(slowest.loadMs, 1)} ms)`,
      slowest.loadRatio <= BUDGETS.loadRatio,
      'the AWS SDK, a fixed part of the design, weighs most, then the logger, the schemas and middy: §4',
    ),
    line(
      `≤ $${f(BUDGETS.documentReadDollars)} per million ${PROFILED.endpoint}`,
      `${usd(documentCost.total)} per million (${documentCost.billedMs} ms billed at ${documentCost.memorySize} MB)`,
      documentCost.total <= BUDGETS.documentReadDollars,
      `HTTP API + Lambda requests + two strongly consistent reads (the document, the caller's role) already cost ${usd(READ_FLOOR + prices.dynamodbReadPerMillionUnits)}: §5`,
    ),
    line(
      'Memory: for reads and for writes, the cheapest size at which each function is within the latency stated in §6',
      `reads ${kinds.read.configured} MB (model: ${kinds.read.mb}), writes ${kinds.write.configured} MB (model: ${kinds.write.mb})`,
      kinds.read.mb === kinds.read.configured && kinds.write.mb === kinds.write.configured,
      'a size is changed only when runs agree (lib/function-settings.ts): §6',
    ),
  ];
  if (r.sharing) {
    const {
      document: d,
      members: m,
      members: { pageSize },
    } = r.sharing;
    list.push(
      growth(
        'GET /document/{id} latency, caller in 1,000 repositories',
        'in 1',
        d.latencyRatio,
        `p50 ${f(d.many.p50)} vs ${f(d.one.p50)} ms`,
      ),
      growth('GET /document/{id} capacity, caller in 1,000 repositories', 'in 1', d.capacityRatio, `${d.many.rru} vs ${d.one.rru} RRU`),
      growth(
        'GET /{id}/members latency, 1,000 members',
        `10 (pages of ${pageSize})`,
        m.latencyRatio,
        `p50 ${f(Math.max(m.many.p50, m.deep.p50))} vs ${f(m.few.p50)} ms`,
      ),
      growth(
        'GET /{id}/members capacity, 1,000 members',
        `10 (pages of ${pageSize})`,
        m.capacityRatio,
        `${Math.max(m.many.rru, m.deep.rru)} vs ${m.few.rru} RRU`,
      ),
    );
  }
  if (r.lifecycle) {
    const { move: m, bound, problems } = r.lifecycle;
    const documents = m.documents.toLocaleString('en');
    list.push(
      growth(
        `PUT /folder (move) latency, ${documents} documents below`,
        'an empty folder',
        m.latencyRatio,
        `p50 ${f(m.big.p50)} vs ${f(m.empty.p50)} ms`,
      ),
      growth(
        `PUT /folder (move) capacity, ${documents} documents below`,
        'an empty folder',
        m.capacityRatio,
        `${m.big.rru} RRU / ${m.big.wru} WRU vs ${m.empty.rru} / ${m.empty.wru}`,
      ),
      line(
        `Deleting, restoring and purging a folder with ${documents} documents below: everything below follows once the worker settles`,
        bound.phases.map((p) => `${p.name} ${f(p.seconds, 1)} s (${p.itemsPerSecond} items/s)`).join(', '),
        problems.length === 0,
        problems.join('; '),
      ),
    );
  }
  if (r.soak) {
    const s = r.soak;
    list.push(
      line(
        `Soak: ${s.clients} clients, ${s.seconds} s of mixed reads and writes: no 5xx, invariants hold after`,
        `${s.serverErrors} 5xx in ${s.requests} answers (p99 ${f(s.p99, 1)} ms); ${s.violations.length} invariant violations`,
        s.serverErrors === 0 && s.violations.length === 0,
      ),
    );
  }
  if (r.files) {
    const x = r.files;
    list.push(
      line(
        `Upload of ${x.mib} MiB through the service's flow ≥ ${BUDGETS.filesRatio}× straight to the bucket`,
        `${f(x.upload.ratio)}× (${f(x.upload.service, 0)} vs ${f(x.upload.direct, 0)} MB/s)`,
        x.upload.ratio >= BUDGETS.filesRatio,
        'the flow adds POST /uploads and a complete that reads the bytes back to check their SHA-256: §12',
      ),
      line(
        `Download through GET /document/{id}/content's redirect ≥ ${BUDGETS.filesRatio}× a GetObject`,
        `${f(x.download.ratio)}× (${f(x.download.service, 0)} vs ${f(x.download.direct, 0)} MB/s)`,
        x.download.ratio >= BUDGETS.filesRatio,
        '§12',
      ),
      line(
        `The service's RSS while ${x.mib} MiB go through it ≤ +${BUDGETS.filesRssMb} MB`,
        `+${f(x.rssGrowthMb.service, 0)} MB (straight to the emulator: +${f(x.rssGrowthMb.direct, 0)} MB)`,
        x.rssGrowthMb.service <= BUDGETS.filesRssMb,
        'the S3 emulator runs in the service process: §12',
      ),
    );
  }
  return list;
}
