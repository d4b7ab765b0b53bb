/** The budgets the service is held to, and each one's verdict from the results. */
import { f, kb, usd } from './markdown';
import { prices } from './prices';
import type { Results } from './report';
import { isReference } from './scenarios/cold-start';
import { type DurationRow, kindChoices, MEMORY_MODEL, memoryChoices, READ_FLOOR } from './scenarios/cost';
import { lifecycleBudgets } from './scenarios/lifecycle';
import { sharingBudgets } from './scenarios/sharing';
import { PROFILED } from './scenarios/throughput';

export const BUDGETS = {
  roundTrips: 1,
  documentReadRatio: 0.7,
  scaleRatio: 1.2,
  bundleBytes: 300_000,
  loadRatio: 2,
  documentReadDollars: 1.5,
  /** A read handler's warm CPU per call / the same DynamoDB requests made by a bare SDK client. */
  readCpuRatio: 1.5,
};

type Verdict = 'met' | 'missed' | 'at the floor' | 'out of reach';
export interface Budget {
  budget: string;
  measured: string;
  verdict: Verdict;
  why?: string;
}

/** Round trips of a kind of endpoint: met at one each, at the floor when each over one is at its minimum. */
function roundTripBudget(budget: string, rows: Results['capacity'], why: string): Budget {
  const over = rows.filter((row) => row.roundTrips > BUDGETS.roundTrips);
  const atFloor = over.every((row) => row.roundTrips <= row.minimumRoundTrips);
  return {
    budget,
    measured:
      `1 for ${rows.length - over.length} of ${rows.length}` +
      [...new Set(over.map((row) => row.roundTrips))]
        .map(
          (trips) =>
            `; ${trips} for ${over
              .filter((row) => row.roundTrips === trips)
              .map((row) => row.endpoint)
              .join(', ')}`,
        )
        .join(''),
    verdict: over.length === 0 ? 'met' : atFloor ? 'at the floor' : 'missed',
    ...(over.length ? { why } : {}),
  };
}

export function budgets(r: Results): Budget[] {
  const reads = r.capacity.filter((row) => row.endpoint.startsWith('GET'));
  const writes = r.capacity.filter((row) => !row.endpoint.startsWith('GET'));
  const document = r.throughput.find((row) => row.endpoint === PROFILED.endpoint && row.concurrency === PROFILED.concurrency)!;
  const handlers = r.coldStart.filter((row) => !isReference(row.name));
  const biggest = handlers.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const slowest = handlers.reduce((a, b) => (b.loadRatio > a.loadRatio ? b : a));
  const documentCost = r.cost.find((row) => row.endpoint === PROFILED.endpoint)!;
  const documentDuration = r.durations.find((row) => row.endpoint === PROFILED.endpoint)!;
  // Results older than the bare-SDK reference have no ratio (their line is left out).
  const heaviest = r.durations
    .filter((row) => row.bare)
    .reduce<DurationRow | undefined>((a, b) => (a && a.cpuRatio! >= b.cpuRatio! ? a : b), undefined);
  const kinds = kindChoices(memoryChoices(r.durations, r.coldStart));
  const verdict = (met: boolean, otherwise: Verdict = 'missed'): Verdict => (met ? 'met' : otherwise);
  return [
    roundTripBudget(
      'Every read endpoint: 1 DynamoDB round trip, authorization included',
      reads,
      'GET / reads a page of your memberships (Query), then those repositories (BatchGetItem): a membership holds your role and the order by name, not the repository as its owners change it: §2',
    ),
    roundTripBudget(
      'Every write: 1 round trip',
      writes,
      'an id names neither its entry nor the other items a change must name (membership, trash record): §2',
    ),
    {
      budget: `${PROFILED.endpoint} ≥ ${BUDGETS.documentReadRatio}× the baseline's requests/s at concurrency ${PROFILED.concurrency}`,
      measured: `${f(document.ratio)}× (${f(document.service.rps, 0)} vs ${f(document.baseline.rps, 0)} req/s)`,
      verdict: verdict(document.ratio >= BUDGETS.documentReadRatio),
      why: document.ratio >= BUDGETS.documentReadRatio ? undefined : 'CPU of the local gateway and handler stack, measured in §1',
    },
    {
      budget: `List page latency at 50,000 documents ≤ ${BUDGETS.scaleRatio}× that at 100`,
      measured: `${f(r.scale.ratio)}× (p50 ${f(r.scale.big.p50)} vs ${f(r.scale.small.p50)} ms)`,
      verdict: verdict(r.scale.ratio <= BUDGETS.scaleRatio),
    },
    {
      budget: `Each bundle ≤ ${BUDGETS.bundleBytes / 1000} KB minified`,
      measured: `largest ${kb(biggest.bytes)} (${biggest.name})`,
      verdict: verdict(biggest.bytes <= BUDGETS.bundleBytes),
      why:
        biggest.bytes <= BUDGETS.bundleBytes
          ? undefined
          : "writes carry what reads do not: Powertools' idempotency with its JMESPath interpreter (~45 KB) and Unicode case folding for names (~24 KB); the AWS SDK is most of every bundle: §4",
    },
    {
      budget: `Module load ≤ ${BUDGETS.loadRatio}× the empty handler's`,
      measured: `slowest ${f(slowest.loadRatio)}× (${slowest.name}, ${f(slowest.loadMs, 1)} ms)`,
      verdict: verdict(slowest.loadRatio <= BUDGETS.loadRatio),
      why:
        slowest.loadRatio <= BUDGETS.loadRatio
          ? undefined
          : 'the AWS SDK, a fixed part of the design, weighs most, then the logger, the schemas and middy: §4',
    },
    ...(heaviest
      ? [
          {
            budget: `Each read handler's warm CPU per call ≤ ${BUDGETS.readCpuRatio}× the same DynamoDB requests made by a bare SDK client`,
            measured: `worst ${f(heaviest!.cpuRatio!)}× (${heaviest!.endpoint}: ${f(heaviest!.cpuMs, 3)} vs ${f(heaviest!.bare!.cpuMs, 3)} ms); GET /document/{id} ${f(documentDuration.cpuRatio!)}×`,
            verdict: verdict(heaviest!.cpuRatio! <= BUDGETS.readCpuRatio),
            why: heaviest!.cpuRatio! <= BUDGETS.readCpuRatio ? undefined : 'what the handler adds per call, profiled in §5',
          },
        ]
      : []),
    {
      budget: `≤ $${f(BUDGETS.documentReadDollars)} per million ${PROFILED.endpoint}`,
      measured: `${usd(documentCost.total)} per million (${documentCost.billedMs} ms billed at ${documentDuration.memorySize} MB)`,
      verdict: verdict(documentCost.total <= BUDGETS.documentReadDollars),
      why: `HTTP API + Lambda requests + two strongly consistent reads (the document, the caller's role) already cost ${usd(READ_FLOOR + prices.dynamodbReadPerMillionUnits)}: §5`,
    },
    {
      budget: `Memory: for reads and for writes, the cheapest size at which each function's own p99 is within ${MEMORY_MODEL.handlerP99Ms} ms and its cold module load within ${f(MEMORY_MODEL.coldLoadMs / 1000, 0)} s`,
      measured: (['read', 'write'] as const).map((kind) => `${kind}s ${kinds[kind].configured} MB (model: ${kinds[kind].mb})`).join(', '),
      verdict: verdict(kinds.read.mb === kinds.read.configured && kinds.write.mb === kinds.write.configured),
      why: (['read', 'write'] as const)
        .filter((kind) => kinds[kind].mb !== kinds[kind].configured)
        .map(
          (kind) =>
            `${kinds[kind].mb} MB for the ${kind}s would cost ${usd(kinds[kind].dollars)} per million calls of each, summed, against ${usd(kinds[kind].configuredDollars)} at ${kinds[kind].configured} MB; a size is changed only when runs agree (lib/function-settings.ts): §6`,
        )
        .join('; '),
    },
    ...(r.sharing ? sharingBudgets(r.sharing) : []),
    ...(r.lifecycle ? lifecycleBudgets(r.lifecycle) : []),
    ...(r.soak
      ? [
          {
            budget: `Soak: ${r.soak.clients} clients, ${r.soak.seconds} s of mixed reads and writes: no 5xx, invariants hold after`,
            measured: `${r.soak.serverErrors} 5xx in ${r.soak.requests} answers (p99 ${f(r.soak.p99, 1)} ms); ${r.soak.violations.length} invariant violations`,
            verdict: verdict(r.soak.serverErrors === 0 && r.soak.violations.length === 0),
          },
        ]
      : []),
  ];
}
