/**
 * bench/results.md (tables a person reads), bench/results.json (everything measured), the
 * access-pattern table in docs/data-model.md, and the budget summary printed at the end.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { memorySize, timeoutSeconds } from '#lib/function-settings';
import { MB_PER_VCPU, prices } from './prices';
import { OTHER, parts } from './profile';
import type { CapacityRow } from './scenarios/capacity';
import { type ColdStartRow, isReference } from './scenarios/cold-start';
import type { CostRow, DurationRow } from './scenarios/cost';
import type { ScaleResult } from './scenarios/scale';
import { LOAD_GENERATOR, PROFILED, type ThroughputRow } from './scenarios/throughput';

export interface Results {
  seconds: number;
  durationSeconds: number;
  capacity: CapacityRow[];
  throughput: ThroughputRow[];
  scale: ScaleResult;
  coldStart: ColdStartRow[];
  durations: DurationRow[];
  cost: CostRow[];
}

export const BUDGETS = {
  roundTrips: 1,
  documentReadRatio: 0.7,
  scaleRatio: 1.2,
  bundleBytes: 300_000,
  loadRatio: 2,
  documentReadDollars: 1.3,
};

type Verdict = 'met' | 'missed' | 'at the floor' | 'out of reach';
interface Budget {
  budget: string;
  measured: string;
  verdict: Verdict;
  why?: string;
}

const f = (value: number, digits = 2) => value.toFixed(digits);
const kb = (bytes: number) => `${f(bytes / 1000, 1)} KB`;
const usd = (value: number) => `$${f(value, 3)}`;
const table = (header: string[], rows: (string | number)[][]) =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

const READ_FLOOR = prices.httpApiPerMillion + prices.lambdaRequestsPerMillion + prices.dynamodbReadPerMillionUnits;

function budgets(r: Results): Budget[] {
  const reads = r.capacity.filter((row) => row.endpoint.startsWith('GET'));
  const writes = r.capacity.filter((row) => !row.endpoint.startsWith('GET'));
  const slowestRead = Math.max(...reads.map((row) => row.roundTrips));
  const overWrites = writes.filter((row) => row.roundTrips > BUDGETS.roundTrips);
  const document = r.throughput.find((row) => row.endpoint === PROFILED.endpoint && row.concurrency === PROFILED.concurrency)!;
  const handlers = r.coldStart.filter((row) => !isReference(row.name));
  const biggest = handlers.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const slowest = handlers.reduce((a, b) => (b.loadRatio > a.loadRatio ? b : a));
  const documentCost = r.cost.find((row) => row.endpoint === 'GET /document/{id}')!;
  return [
    {
      budget: 'Every read endpoint: 1 DynamoDB round trip, authorization included',
      measured: `${slowestRead} round trip for each of ${reads.length} read endpoints`,
      verdict: slowestRead <= BUDGETS.roundTrips ? 'met' : 'missed',
    },
    {
      budget: 'Every write: 1 round trip',
      measured:
        `1 for ${writes.length - overWrites.length} of ${writes.length}` +
        (overWrites.length ? `; 2 for ${overWrites.map((row) => row.endpoint).join(', ')}` : ''),
      verdict:
        overWrites.length === 0 ? 'met' : overWrites.every((row) => row.roundTrips <= row.minimumRoundTrips) ? 'at the floor' : 'missed',
      why: overWrites.length ? 'a document id names neither its folder entry nor its repository: §2' : undefined,
    },
    {
      budget: `GET /document/{id} ≥ ${BUDGETS.documentReadRatio}× the baseline's requests/s at concurrency 32`,
      measured: `${f(document.ratio)}× (${f(document.service.rps, 0)} vs ${f(document.baseline.rps, 0)} req/s)`,
      verdict: document.ratio >= BUDGETS.documentReadRatio ? 'met' : 'missed',
      why: document.ratio >= BUDGETS.documentReadRatio ? undefined : 'CPU of the local gateway and handler stack, measured in §1',
    },
    {
      budget: `List page latency at 50,000 documents ≤ ${BUDGETS.scaleRatio}× that at 100`,
      measured: `${f(r.scale.ratio)}× (p50 ${f(r.scale.big.p50)} vs ${f(r.scale.small.p50)} ms)`,
      verdict: r.scale.ratio <= BUDGETS.scaleRatio ? 'met' : 'missed',
    },
    {
      budget: `Each bundle ≤ 300 KB minified`,
      measured: `largest ${kb(biggest.bytes)} (${biggest.name})`,
      verdict: biggest.bytes <= BUDGETS.bundleBytes ? 'met' : 'missed',
    },
    {
      budget: `Module load ≤ ${BUDGETS.loadRatio}× the empty handler's`,
      measured: `slowest ${f(slowest.loadRatio)}× (${slowest.name}, ${f(slowest.loadMs, 1)} ms)`,
      verdict: slowest.loadRatio <= BUDGETS.loadRatio ? 'met' : 'missed',
      why:
        slowest.loadRatio <= BUDGETS.loadRatio
          ? undefined
          : 'the AWS SDK, a fixed part of the design, weighs most, then the logger, the schemas and middy: §4',
    },
    {
      budget: `≤ $${f(BUDGETS.documentReadDollars)} per million GET /document/{id}`,
      measured: `${usd(documentCost.total)} per million`,
      verdict:
        documentCost.total <= BUDGETS.documentReadDollars ? 'met' : READ_FLOOR > BUDGETS.documentReadDollars ? 'out of reach' : 'missed',
      why: `HTTP API + Lambda requests + one strongly consistent read already cost ${usd(READ_FLOOR)}: §5`,
    },
  ];
}

function summaryTable(list: Budget[]): string {
  return table(
    ['Budget', 'Measured', 'Verdict'],
    list.map((b) => [b.budget, b.measured, `**${b.verdict}**${b.why ? ` — ${b.why}` : ''}`]),
  );
}

function throughputSection(r: Results): string {
  const rows = r.throughput.map((row) => [
    row.endpoint,
    row.concurrency,
    f(row.service.rps, 0),
    f(row.service.p50),
    f(row.service.p99),
    f(row.baseline.rps, 0),
    f(row.baseline.p50),
    f(row.baseline.p99),
    `**${f(row.ratio)}**`,
    row.service.errors + row.baseline.errors,
  ]);
  const profiled = r.throughput.find((row) => row.cpuPerRequest)!;
  const names = [...parts.map((p) => p.name), OTHER];
  const cpu = profiled.cpuPerRequest!;
  const total = (side: Record<string, number>) => names.reduce((sum, name) => sum + (side[name] ?? 0), 0);
  const cpuRows = names.map((name) => [name, f(cpu.service[name] ?? 0, 3), f(cpu.baseline[name] ?? 0, 3)]);
  cpuRows.push(['**service process, total**', `**${f(total(cpu.service), 3)}**`, `**${f(total(cpu.baseline), 3)}**`]);
  cpuRows.push([LOAD_GENERATOR, f(cpu.service[LOAD_GENERATOR] ?? 0, 3), f(cpu.baseline[LOAD_GENERATOR] ?? 0, 3)]);
  const gateway = cpu.service[parts[0].name] ?? 0;
  const stack = cpu.service[parts[1].name] ?? 0;
  const extra = total(cpu.service) - total(cpu.baseline) + (cpu.service[LOAD_GENERATOR] ?? 0);
  return `## 1. Throughput and latency

Each endpoint through the local server (\`lib/local/service.ts\`, what \`npm start\` runs), loaded with
autocannon at 1 and 32 connections for ${r.seconds} s after a 1 s warm-up; then the **baseline**: the same
DynamoDB requests made directly with the handlers' own client (\`db()\`) in the same process, as many in
flight, for as long (\`bench/baseline.ts\`: reads replay the requests recorded in §2; writes build theirs
with the store's own builders). Latencies in ms, from each response (not autocannon's whole-ms histogram).
A ratio is service / baseline requests per second, measured back to back.

${table(['Endpoint', 'c', 'service req/s', 'p50', 'p99', 'baseline req/s', 'p50', 'p99', 'ratio', 'errors'], rows)}

${PROFILED.endpoint} at concurrency ${PROFILED.concurrency} (the budgeted pair) ran three times, the two sides taking turns:
ratios ${profiled.ratios?.map((x) => f(x)).join(', ')}; the table shows the median round.

### Where the CPU goes (${PROFILED.endpoint}, concurrency ${PROFILED.concurrency})

CPU milliseconds per request in the service process (a sampling profile of the measured run;
each sample charged to the innermost frame of a known part, \`bench/profile.ts\`). The machine has
${cpus().length} cores, shared by DynamoDB Local (Java), this process and autocannon.

${table(['Part', 'service run', 'baseline run'], cpuRows)}

The baseline is the floor for this stack: DynamoDB Local's own time plus the client's, with nothing
in between. Through the local server each request also pays for the local API Gateway
(${f(gateway, 3)} ms: routing, building the event, verifying the RS256 JWT with \`jose\`), the handler stack
(${f(stack, 3)} ms: middy, Powertools logger, zod, the response), the HTTP server's sockets and parsing (in the
"Node" row), and autocannon on the same cores: about ${f(extra, 2)} ms of CPU per request more, on a machine
whose two cores DynamoDB Local also needs. That is why the ratio is what it is, and why it fell when the
handlers' DynamoDB client became cheaper than the AWS SDK (the baseline is mostly the client and DynamoDB
Local, so it gained the most).
The parts that would move it are not the data layer's: the JWT check (API Gateway's job on AWS, not billed
as Lambda time; a cache of verified tokens until their expiry would remove most of it) and the
handler stack.
`;
}

function capacitySection(r: Results): string {
  const rows = r.capacity.map((row) => [
    row.endpoint,
    row.requests,
    `${row.roundTrips}${row.minimumRoundTrips !== row.roundTrips ? ` (min ${row.minimumRoundTrips})` : ''}`,
    [
      row.items.reads.length ? `read ${row.items.reads.join(', ')}` : '',
      row.items.writes.length ? `write ${row.items.writes.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; '),
    `${row.aws.read} / ${row.aws.write}`,
    `${row.minimum.read} / ${row.minimum.write}`,
    `${row.local.read} / ${row.local.write}`,
  ]);
  return `## 2. Round trips and capacity

One call of each endpoint with a 1 KB document, every DynamoDB request recorded (\`bench/recorder.ts\`).
**AWS RRU / WRU** applies DynamoDB's billing rules to the sizes of the items each request touched (read
before and after every transaction): a strongly consistent read is 1 RRU per 4 KB of each item (a missing
item costs 1), a Query 1 RRU per 4 KB of its page, a transactional write 2 WRU per KB of the larger of an
item's two images, and a ConditionCheck is billed as such a write.¹ **Minimum** counts only the items the
endpoint cannot do without (\`bench/endpoints.ts\`); an extra read or write would show as a difference.
**Local** is what DynamoDB Local 3.3 reports (\`ReturnConsumedCapacity: TOTAL\`); it under-counts
transactions, so plan with the AWS column. \`A ∥ B\`: sent together (one round trip); \`A → B\`: one after
the other.

${table(['Endpoint', 'DynamoDB requests', 'Round trips', 'Items', 'AWS RRU / WRU', 'Minimum', 'Local RCU / WCU'], rows)}

¹ AWS's pages do not say how a ConditionCheck is billed; measured against DynamoDB, it consumes write
capacity like a write of the item (https://martinhicks.dev/articles/what-a-conditional-dynamodb-transaction-costs).

**Why PUT and DELETE take two round trips (the floor).** A write must name every key it changes:
DynamoDB has no "delete where". Changing or deleting a document rewrites or removes its entry in its
folder's listing, keyed \`FOLDER#<folderId>\` / \`D#<nameKey>\`, and checks the caller's role in its
repository. The request carries only the document id, which may be client-chosen (POST /document takes
one), so it cannot encode the folder, the name, or the repository, and a move or rename changes them
anyway. So the entry's key and the repository are known only after reading the document: one read, then
one transaction. A secondary index would not help: it cannot be written in a transaction or read
strongly consistently.

**What one-round-trip creates cost.** POST /folder and POST /document no longer read first: the folder's
existence, the caller's role and the other kind's name are ConditionChecks in the one transaction (a
folder id starts with its repository's id). Each ConditionCheck is billed like a transactional write,
2 WRU ($${f(2 * prices.dynamodbWritePerMillionUnits, 2)} per million) where the read it replaces was 1 RRU ($${f(prices.dynamodbReadPerMillionUnits, 3)}): a create
now costs about $${f(2 * 2 * prices.dynamodbWritePerMillionUnits - 4 * prices.dynamodbReadPerMillionUnits, 2)} more per million calls than read-then-write (two more checks, four fewer reads), for one
round trip (a few ms) less. The caller's ACCESS item grows about 30 bytes per repository: past ~30
repositories it exceeds 1 KB and its check costs 2 WRU more per KB.
`;
}

function scaleSection(r: Results): string {
  const s = r.scale;
  return `## 3. Scale

GET /folder/{id}/documents?limit=50, one request at a time, the folders taking turns (3 rounds), after
seeding 50,000 documents (both items of each, as the store writes them) straight into the table in
${f(s.seedSeconds, 0)} s. The deep page starts from a token half way through the big folder.

${table(
  ['Folder', 'Documents', 'p50 ms', 'p99 ms', 'requests'],
  [
    ['small', s.small.documents, f(s.small.p50), f(s.small.p99), s.small.samples],
    ['big, first page', s.big.documents, f(s.big.p50), f(s.big.p99), s.big.samples],
    [`big, page at ${s.deepPage.position}`, s.big.documents, f(s.deepPage.p50), f(s.deepPage.p99), s.deepPage.samples],
  ],
)}

Ratio big / small (p50): **${f(s.ratio)}**. A page is one Query from the token's position, whatever the
folder's size. A later page names its key range from that position (\`SK BETWEEN\`): DynamoDB Local
otherwise walks the prefix from its first item to the start key, which made a page half way through
50,000 documents about 3× slower than the first (\`functions/core/store/pages.ts\`).
`;
}

function coldStartSection(r: Results): string {
  const empty = r.coldStart.find((row) => row.name === 'empty handler')!;
  const pieces = r.coldStart.filter((row) => row.name.startsWith('part: '));
  const handler = r.coldStart.find((row) => row.name === 'GetDocument')!;
  const rows = r.coldStart.map((row) => [
    row.name,
    row.handler,
    kb(row.bytes),
    kb(row.gzipBytes),
    f(row.loadMs, 1),
    f(row.importMs, 1),
    `**${f(row.loadRatio)}**`,
  ]);
  return `## 4. Cold start

Every function bundled as the stack bundles it (\`lib/bundling.ts\`), and an empty handler bundled the same
way. **Load** is the median, over ${r.coldStart[0]!.runs} fresh Node processes per bundle (taking turns), of the time from the
process's start until \`import()\` of the bundle resolved — what a cold start waits for before the first
call; **import** is the \`import()\` alone. Sizes are minified, and gzip.

${table(['Function', 'Handler', 'Minified', 'gzip', 'Load ms', 'Import ms', '× empty'], rows)}

What a handler's load is made of — each part bundled alone, its import time above the empty handler's:
${pieces.map((p) => `${p.name.replace('part: ', '')} ${f(p.importMs - empty.importMs, 1)} ms`).join(', ')}; a whole handler
${f(handler.importMs - empty.importMs, 1)} ms (${handler.name}). The AWS SDK v3 (the data layer's part) is the largest
share of a handler's bundle and of its load; it is a fixed part of the design (TOOLCHAIN.md, the developers' guide) and is
bundled at a pinned version, with the default credential chain swapped for a reader of Lambda's environment variables
(\`lib/bundling.ts\`: ~140 KB less). A hand-written DynamoDB client (JSON protocol, SigV4) measured ~1.8× the empty
handler instead, and was not kept: signing, retries and the wire protocol are what the SDK does well. The parts overlap
(several load \`node:crypto\`, the ids and paging tokens too), so they add up to more than a handler. The rest is the
Powertools logger, zod and middy.
`;
}

function costSection(r: Results): string {
  const durationRows = r.durations.map((row) => [row.endpoint, f(row.firstMs, 1), f(row.wallMs, 2), f(row.cpuMs, 2), f(row.lambdaMs, 1)]);
  const costRows = r.cost.map((row) => [
    row.endpoint,
    row.billedMs,
    `${row.readUnits} / ${row.writeUnits}`,
    usd(row.httpApi),
    usd(row.lambdaRequests),
    usd(row.lambdaDuration),
    usd(row.dynamodb),
    `**${usd(row.total)}**`,
  ]);
  const doc = r.cost.find((row) => row.endpoint === 'GET /document/{id}')!;
  return `## 5. Cost

Dollars per million calls on AWS, ${prices.region}, list prices checked on **${prices.checked}**: HTTP API
$${f(prices.httpApiPerMillion)} per million requests; Lambda $${f(prices.lambdaRequestsPerMillion)} per million requests and
$${prices.lambdaArmPerGbSecond} per GB-second on arm64; DynamoDB on-demand $${f(prices.dynamodbReadPerMillionUnits, 3)} per million read
request units and $${f(prices.dynamodbWritePerMillionUnits, 3)} per million write request units (since the 1 November 2024 price
cut). Sources: ${prices.sources.join(', ')}. Free tiers, logs and data transfer are left out.

**Handler duration.** Each function's bundle is called ${r.durations[0]!.calls} times in a fresh Node process with
API Gateway events (after the first call, which also opens the connection), against DynamoDB Local, with
\`LOG_LEVEL=INFO\` as deployed. Lambda gives a function CPU in proportion to its memory (one vCPU at
${MB_PER_VCPU} MB), so at the configured ${memorySize} MB (\`lib/function-settings.ts\`; timeout ${timeoutSeconds} s) the CPU part is
scaled by ${f(MB_PER_VCPU / memorySize)} and the wait for DynamoDB kept as measured; Lambda bills whole milliseconds.

${table(['Endpoint', 'first call ms', 'warm ms', 'CPU ms', `on Lambda at ${memorySize} MB`], durationRows)}

${table(['Endpoint', 'Billed ms', 'RRU / WRU', 'HTTP API', 'Lambda requests', 'Lambda duration', 'DynamoDB', 'Total per million'], costRows)}

**GET /document/{id} and the $${f(BUDGETS.documentReadDollars)} budget.** Before any code runs, a call costs
$${f(prices.httpApiPerMillion)} (HTTP API) + $${f(prices.lambdaRequestsPerMillion)} (Lambda request) = $${f(prices.httpApiPerMillion + prices.lambdaRequestsPerMillion)} per million. The contract
promises read-your-writes, so the document is read strongly consistently: 1 RRU for a ≤ 4 KB item,
$${f(prices.dynamodbReadPerMillionUnits, 3)}. That is **$${f(READ_FLOOR, 3)} per million with no Lambda time at all** — over the budget.
Authorization reads the caller's ACCESS item in the same request: another RRU, $${f(READ_FLOOR + prices.dynamodbReadPerMillionUnits, 3)}. The
measured ${doc.billedMs} ms at ${memorySize} MB adds ${usd(doc.lambdaDuration)}: **${usd(doc.total)}**. Getting under $${f(BUDGETS.documentReadDollars)} would
take eventually consistent reads (½ RRU each: $${f(prices.httpApiPerMillion + prices.lambdaRequestsPerMillion + prices.dynamodbReadPerMillionUnits, 3)} for both items,
still over; a single item at ½ RRU would fit but leaves authorization out), or roles in the JWT (no read,
but a revoked member keeps access until the token expires), or no Lambda (HTTP APIs cannot call
DynamoDB directly; a REST API can, at $3.50 per million). Each trades away what the contract promises, so
the budget is out of reach for this contract; what is left to spend is duration, already
${usd(doc.lambdaDuration)}.
`;
}

/** GET /document/{id} at other memory sizes, with the same model (why the configured one). */
function memorySection(r: Results): string {
  const duration = r.durations.find((row) => row.endpoint === 'GET /document/{id}')!;
  const load = r.coldStart.find((row) => row.name === 'GetDocument')!;
  const rows = [128, 256, 512, 1024, MB_PER_VCPU].map((mb) => {
    const scale = Math.max(1, MB_PER_VCPU / mb);
    const ms = Math.max(0, duration.wallMs - duration.cpuMs) + duration.cpuMs * scale;
    const dollars = (mb / 1024) * (Math.ceil(ms) / 1000) * prices.lambdaArmPerGbSecond * 1e6;
    return [mb === memorySize ? `**${mb}** (configured)` : mb, f(ms, 1), usd(dollars), f(load.loadMs * scale, 0)];
  });
  return `**Memory.** The same model at other sizes, for GET /document/{id} (the wait for DynamoDB is
DynamoDB Local's here; on AWS it is a few ms, which favours smaller sizes a little more). Cold start is
the module load of §4 scaled the same way (Lambda bills the init phase too):

${table(['Memory MB', 'Duration ms', 'Lambda duration $ per million', 'Cold start ms (model)'], rows)}

Below ${MB_PER_VCPU} MB the work is mostly CPU, so halving the memory about doubles the time while the bill
barely moves (cents per million calls either way); ${memorySize} MB keeps a warm call near ${f(Number(rows.find((row) => String(row[0]).includes('configured'))![1]), 0)} ms and a cold
start's module load near ${f(Number(rows.find((row) => String(row[0]).includes('configured'))![3]) / 1000, 1)} s.
`;
}

export function renderMarkdown(r: Results, list: Budget[]): string {
  return `# Benchmark results

Written by \`npm run bench\` (\`bench/run.ts\`) on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()},
DynamoDB Local 3.3 in memory, ${r.seconds} s per measured run, ${f(r.durationSeconds / 60, 1)} minutes in all. Absolute numbers move
with whatever else the machine runs; ratios measured back to back hold better. \`results.json\` has every number.

## Budgets

${summaryTable(list)}

${throughputSection(r)}
${capacitySection(r)}
${scaleSection(r)}
${coldStartSection(r)}
${costSection(r)}
${memorySection(r)}`;
}

/** The access-pattern table in docs/data-model.md, between its bench markers. */
export function accessPatternTable(r: Results): string {
  return table(
    ['Endpoint', 'DynamoDB requests', 'Round trips', 'Items read; written', 'RRU / WRU (AWS)', 'Minimum', 'Local RCU / WCU'],
    r.capacity.map((row) => [
      row.endpoint,
      row.requests,
      row.roundTrips,
      `${row.items.reads.join(', ') || '—'}; ${row.items.writes.join(', ') || '—'}`,
      `${row.aws.read} / ${row.aws.write}`,
      `${row.minimum.read} / ${row.minimum.write}`,
      `${row.local.read} / ${row.local.write}`,
    ]),
  );
}

const START = '<!-- bench:access-patterns:start -->';
const END = '<!-- bench:access-patterns:end -->';

export async function writeReports(r: Results): Promise<string> {
  const list = budgets(r);
  const here = import.meta.dirname;
  const json = { ...r, capacity: r.capacity.map(({ recorded: _recorded, ...row }) => row), budgets: list, prices, memorySize };
  await writeFile(join(here, 'results.json'), `${JSON.stringify(json, null, 2)}\n`);
  await writeFile(join(here, 'results.md'), renderMarkdown(r, list));
  const docPath = join(here, '..', 'docs', 'data-model.md');
  const doc = await readFile(docPath, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start !== -1 && end > start) {
    await writeFile(docPath, `${doc.slice(0, start + START.length)}\n${accessPatternTable(r)}\n${doc.slice(end)}`);
  }
  return list.map((b) => `${b.verdict.padEnd(12)} ${b.budget}: ${b.measured}`).join('\n');
}
