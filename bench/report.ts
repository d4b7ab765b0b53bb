/**
 * The one module that renders what `npm run bench` measured, all of it under bench/: results.md
 * (the budgets, then a section per scenario; how each was measured is its scenario file's
 * header), results.json (every number, the budgets, the prices) and access-patterns.md (the
 * table docs/data-model.md links to). Costs are priced here, at the memory sizes configured now.
 */
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { VERIFY_INLINE_BYTES } from '#core/use-cases/finish-upload';
import { memorySizes, timeoutSeconds } from '#lib/function-settings';
import { budgets } from './budgets';
import { type CostRow, costs, fileCosts, MB_PER_VCPU, MEMORY_MODEL, memoryChoices, prices, READ_FLOOR } from './cost-model';
import { f, kb, table, usd } from './markdown';
import { type CapacityRow, type ConflictsResult, EMPTY, type FilesResult, type Latency, PROFILED, type Results } from './results';

const n = (value: number) => value.toLocaleString('en');
const latency = (l: Latency) => [f(l.rps, 0), f(l.p50), f(l.p99)];

const capacityTable = (rows: CapacityRow[]) =>
  table(
    ['Endpoint', 'DynamoDB requests', 'Round trips', 'Items read; written', 'RRU / WRU (AWS)', 'Minimum', 'Local RCU / WCU'],
    rows.map((row) => [
      row.endpoint,
      row.requests,
      `${row.roundTrips}${row.minimumRoundTrips === row.roundTrips ? '' : ` (min ${row.minimumRoundTrips})`}`,
      `${row.items.reads.join(', ') || '—'}; ${row.items.writes.join(', ') || '—'}`,
      `${row.aws.read} / ${row.aws.write}`,
      `${row.minimum.read} / ${row.minimum.write}`,
      `${row.local.read} / ${row.local.write}`,
    ]),
  );

const accessPatterns = (rows: CapacityRow[]) => `# Access patterns, measured

Written by \`npm run bench\`: one call of each endpoint with a 1 KB document. How each column is counted:
[results.md §2](results.md#2-round-trips-and-capacity).

${capacityTable(rows)}
`;

function costSections(r: Results, cost: CostRow[]): string {
  const doc = cost.find((row) => row.endpoint === PROFILED.endpoint)!;
  const kinds = memoryChoices(r.durations, r.coldStart);
  return `## 5. Cost

Dollars per million calls on AWS at ${prices.region} list prices checked on **${prices.checked}**, priced by \`bench/cost-model.ts\` from
each function's warm CPU and wait per call (\`bench/scenarios/cost.ts\`, the CPU scaled to the memory's share of a vCPU, one
at ${MB_PER_VCPU} MB) and the capacity of §2. Free tiers, logs and data transfer are left out.

${table(
  ['Endpoint', 'CPU ms', 'CPU p99', 'wait ms', 'MB', 'Billed ms', 'RRU / WRU', 'Lambda duration', 'DynamoDB', 'Total per million'],
  cost.map((c, i) => {
    const d = r.durations[i]!;
    return [
      c.endpoint,
      f(d.cpuMs, 3),
      f(d.cpuP99, 3),
      f(d.waitMs),
      c.memorySize,
      c.billedMs,
      `${c.readUnits} / ${c.writeUnits}`,
      usd(c.lambdaDuration),
      usd(c.dynamodb),
      `**${usd(c.total)}**`,
    ];
  }),
)}

**${PROFILED.endpoint}.** HTTP API and the Lambda request cost $${f(prices.httpApiPerMillion + prices.lambdaRequestsPerMillion)} per million before any code runs; the
strongly consistent read read-your-writes needs makes it ${usd(READ_FLOOR)}, and the caller's role, read in the same request, one more
RRU: **${usd(READ_FLOOR + prices.dynamodbReadPerMillionUnits)} with no Lambda time at all**. ${doc.billedMs} ms at ${doc.memorySize} MB add ${usd(doc.lambdaDuration)}: **${usd(doc.total)}**.

## 6. Memory size

Each function priced at each size from its warm figures (§5) and module load (§4), ${f(MEMORY_MODEL.coldShare * 100, 0)}% of calls cold. **The latency
stated:** the handler's own p99 within ${MEMORY_MODEL.handlerP99Ms} ms and a cold module load within ${f(MEMORY_MODEL.coldLoadMs / 1000, 0)} s (\`bench/cost-model.ts\`). For the
reads and for the writes (\`lib/function-settings.ts\`), the cheapest size at which every function of the kind is within; a
size is changed only when runs agree.

${table(
  ['Functions', ...MEMORY_MODEL.sizes.map((mb) => `${mb} MB`), 'chosen', 'configured'],
  (['read', 'write'] as const).map((kind) => [
    `${kind}s (${kinds[kind].functions})`,
    ...kinds[kind].sizes.map((s) => `${usd(s.dollars)}${s.within ? '' : ' (over)'}`),
    kinds[kind].mb,
    kinds[kind].configured === kinds[kind].mb ? `**${kinds[kind].configured}**` : kinds[kind].configured,
  ]),
)}

Each cell: the kind's Lambda dollars per million calls of each function, summed; "over" where some function is not within.
`;
}

export const conflictsSection = (r: ConflictsResult) => `## 11. Transaction conflicts

${r.rounds} rounds of ${r.bursts} bursts each, the services taking turns on one fresh DynamoDB Local (\`bench/scenarios/conflicts.ts\`); p50
and p99 are the rounds' medians, counts their sums. Each burst's ratios are to a write of the same kind alone, just before it.
"Conflicts refused": transactions the proxy cancelled, each one a retry by the service, or a 503.

${Object.entries(r.sides)
  .map(([side, workloads]) => {
    const rows = Object.entries(workloads).map(([name, o]) => [
      name,
      o.requests,
      o.unavailable,
      o.wrong,
      n(o.conflicts),
      `${f(o.p50, 0)} / ${f(o.p99, 0)}`,
      `${f(o.alone.p50, 0)} / ${f(o.alone.p99, 0)}`,
      f(o.ratio.p50),
      f(o.ratio.p99),
    ]);
    return `**${side}**\n\n${table(['Workload', 'requests', '503', 'other errors', 'conflicts refused', 'p50 / p99 ms', 'alone p50 / p99 ms', 'p50 / alone', 'p99 / alone'], rows)}`;
  })
  .join('\n\n')}
`;

/** The service's upload rate without its complete, median over the rounds (MB/s). */
const withoutComplete = (r: FilesResult) => {
  const rates = r.rounds.map((x) => (r.mib * 1024 ** 2) / ((r.mib * 1024 ** 2) / (x.upload.service * 1e6) - x.completeSeconds) / 1e6);
  return [...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)]!;
};
const VERIFY_INLINE_MIB = VERIFY_INLINE_BYTES / 1024 ** 2;

function filesSection(r: FilesResult, cost: CostRow[]): string {
  const files = fileCosts(cost, r);
  const tooLong = files.rows.find((row) => row.checkSeconds > timeoutSeconds);
  return `## 12. Files

A file of ${n(r.mib)} MiB (generated as it is sent) in ${r.partCount} parts of ${f(r.partSize / 1024 ** 2, 0)} MiB, ${r.parallel} at a time: through the service's flow
(POST /uploads, the parts to their presigned URLs, complete until the Document: what \`npm run upload\` does) and straight to the same S3
emulator as a multipart upload with its root credentials; then GET /document/{id}/content and its redirect against a GetObject of
the same object (\`bench/scenarios/files.ts\`). MB/s are 10^6 bytes a second. RSS: the service process's peak growth during the upload
(it runs the S3 emulator too, so the direct side shows the emulator's own share).

${table(
  [
    'Round',
    'upload via service',
    'of which complete (s)',
    'upload direct',
    'ratio',
    'download via redirect',
    'GetObject',
    'ratio',
    'RSS + MB (service / direct)',
  ],
  r.rounds.map((x, i) => [
    i + 1,
    f(x.upload.service, 0),
    f(x.completeSeconds, 1),
    f(x.upload.direct, 0),
    f(x.upload.service / x.upload.direct),
    f(x.download.service, 0),
    f(x.download.direct, 0),
    f(x.download.service / x.download.direct),
    `${f(x.rssMb.service, 0)} / ${f(x.rssMb.direct, 0)}`,
  ]),
)}

Medians: upload **${f(r.upload.service, 0)} vs ${f(r.upload.direct, 0)} MB/s, ratio ${f(r.upload.ratio)}**, download **${f(r.download.service, 0)} vs ${f(r.download.direct, 0)} MB/s,
ratio ${f(r.download.ratio)}** (a ratio is the median of the rounds' ratios: both sides of a round met the same load); RSS growth at most **+${f(r.rssGrowthMb.service, 0)} MB** (direct: +${f(r.rssGrowthMb.direct, 0)} MB). "Complete" is
POST /uploads/{id}/complete until it answered the Document (median ${f(r.completeSeconds, 1)} s): the bucket joins the parts, then the service reads
the whole object back to check its SHA-256 (S3 keeps no SHA-256 of a multipart object); over ${VERIFY_INLINE_MIB} MiB it answers 202 and the client asks
again after \`Retry-After\`. The service's parts alone went at ${f(withoutComplete(r), 0)} MB/s (median; the direct side's time includes its own join).

**Cost on AWS** (\`fileCosts\` in \`bench/cost-model.ts\`): the API calls as §5 prices them, the Lambda time of reading the bytes back to
check their SHA-256 (the complete measured here, per byte, at the write functions' share of a vCPU), and S3 Standard's requests at
$${prices.s3PutPerThousand} per 1,000 PUT/POST and $${prices.s3GetPerThousand} per 1,000 GET (one part: a PutObject; more: create, a PUT per part, complete;
one GET to check); data transfer left out.

${table(
  ['Dollars per million', 'API calls', 'API', 'Lambda checking', 'S3 requests', 'Total'],
  files.rows.map((c) => [
    c.operation,
    c.calls,
    usd(c.api * 1e6),
    c.checkSeconds ? `${usd(c.check * 1e6)} (${f(c.checkSeconds, 2)} s each)` : '—',
    usd(c.s3 * 1e6),
    `**${usd(c.total * 1e6)}**`,
  ]),
)}
${files.standIns.length ? `\nNot measured by the cost scenario yet, so priced as the costliest measured endpoint of their kind: ${files.standIns.join(', ')}.\n` : ''}
${tooLong ? `**Checking 1 GiB in one function would take ${f(tooLong.checkSeconds, 0)} s at ${memorySizes.write} MB, more than its ${timeoutSeconds} s timeout** (Lambda allows 900 s at most).\n\n` : ''}Storage: **$${prices.s3PerGbMonth} per GB-month** of every kept version (revisions and the trash included).
`;
}

function resultsMarkdown(r: Results, cost: CostRow[], list: ReturnType<typeof budgets>): string {
  const profiled = r.throughput.find((row) => row.ratios)!;
  const cold = r.coldStart;
  const { feed, sharing, lifecycle, soak } = r;
  const sections = [
    `# Benchmark results

Written by \`npm run bench\` (\`bench/run.ts\`) on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()},
DynamoDB Local 3.3 in memory, ${r.seconds} s per measured run, ${f(r.durationSeconds / 60, 1)} minutes in all. Absolute numbers move
with whatever else the machine runs; ratios measured back to back hold better. \`results.json\` has every number; how each
section was measured is said at the top of its scenario, \`bench/scenarios/<name>.ts\`.

## Budgets

${table(
  ['Budget', 'Measured', 'Verdict'],
  list.map((b) => [b.budget, b.measured, `**${b.verdict}**${b.why ? ` — ${b.why}` : ''}`]),
)}
`,
    `## 1. Throughput and latency

Each endpoint through the local server (what \`npm start\` runs) under autocannon, then the **baseline**: its store call
(\`bench/endpoints.ts\`) made directly in the service process, as many in flight; ${r.seconds} s each. Latencies in ms. Ratio:
service / baseline requests per second; ${PROFILED.endpoint} at ${PROFILED.concurrency} ran three rounds (ratios ${profiled.ratios!.map((x) => f(x)).join(', ')}), the median shown.

${table(
  ['Endpoint', 'c', 'service req/s', 'p50', 'p99', 'baseline req/s', 'p50', 'p99', 'ratio', 'errors'],
  r.throughput.map((t) => [
    t.endpoint,
    t.concurrency,
    ...latency(t.service),
    ...latency(t.baseline),
    `**${f(t.ratio)}**`,
    t.service.errors + t.baseline.errors,
  ]),
)}
`,
    `## 2. Round trips and capacity

One call of each endpoint with a 1 KB document, its DynamoDB requests recorded (\`bench/recorder.ts\`); its store call made
directly sent the same ones. \`A ∥ B\`: sent together, one round trip; \`A → B\`: one after the other. **AWS RRU / WRU**
applies DynamoDB's billing rules to the items' sizes (read before and after each write): 1 RRU per 4 KB of each item read
strongly consistently (a missing one costs 1), 1 RRU per 4 KB of a Query's page, 2 WRU per KB of the larger image of each
transaction item, a ConditionCheck billed as such a write.¹ **Minimum** counts only the items the endpoint cannot do
without (\`bench/endpoints.ts\`). **Local** is what DynamoDB Local 3.3 reports; it under-counts transactions.

${capacityTable(r.capacity)}

¹ Measured against DynamoDB (AWS's pages do not say): https://martinhicks.dev/articles/what-a-conditional-dynamodb-transaction-costs.
Why changes take two round trips: [docs/data-model.md](../docs/data-model.md#writes-one-transaction-conditions-decide).
`,
    `## 3. Scale

GET /folder/{id}/documents?limit=50, one request at a time, the folders taking turns (3 rounds), after seeding 50,000
documents (the items the store's own createDocument writes, 25 to a BatchWriteItem) in ${f(r.scale.seedSeconds, 0)} s.

${table(
  ['Folder', 'Documents', 'p50 ms', 'p99 ms', 'requests'],
  [
    ['small', r.scale.small.documents, f(r.scale.small.p50), f(r.scale.small.p99), r.scale.small.samples],
    ['big, first page', r.scale.big.documents, f(r.scale.big.p50), f(r.scale.big.p99), r.scale.big.samples],
    [
      `big, page at ${r.scale.deepPage.position}`,
      r.scale.big.documents,
      f(r.scale.deepPage.p50),
      f(r.scale.deepPage.p99),
      r.scale.deepPage.samples,
    ],
  ],
)}

Ratio big / small (p50): **${f(r.scale.ratio)}**. A page is one Query from the token's position, whatever the folder's size.
`,
    `## 4. Cold start

Every function bundled as the stack bundles it, and an empty handler bundled the same way. **Load**: the median, over
${cold[0]!.runs} fresh Node processes per bundle (taking turns), of the time from the process's start until \`import()\` of the bundle
resolved; **import**: the \`import()\` alone. Sizes are minified, and gzip.

${table(
  ['Function', 'Handler', 'Minified', 'gzip', 'Load ms', 'Import ms', '× empty'],
  cold.map((c) => [
    c.name,
    c.handler,
    kb(c.bytes),
    kb(c.gzipBytes),
    f(c.loadMs, 1),
    f(c.importMs, 1),
    c.name === EMPTY ? '1.00' : `**${f(c.loadRatio)}**`,
  ]),
)}
`,
    costSections(r, cost),
  ];
  if (feed) {
    const c = feed.perChange;
    const total = c.writeSide.wru + c.worker.wru;
    const dollars = total * prices.dynamodbWritePerMillionUnits + c.worker.rru * prices.dynamodbReadPerMillionUnits;
    sections.push(`## 7. The change feed

**Writes per second into one repository**, ${feed.clients} clients updating 300 documents of 1 KB round robin, ${feed.seconds} s per run,
${feed.rounds.length} rounds taking turns: this service (each write records its change, the worker numbers it into the feed) against
the service at \`${feed.commit}\` (before the feed), side by side on one DynamoDB Local. The follower read the feed from \`latest\`
during each run with the feed; writes are counted from the documents' versions.

${table(
  ['Round', `${feed.commit} writes/s`, 'now writes/s', 'ratio', 'writes committed (now)', 'follower saw', 'twice', 'out of order'],
  feed.rounds.map((x, i) => [
    i + 1,
    f(x.before.rps, 0),
    f(x.now.rps, 0),
    f(x.now.rps / x.before.rps),
    x.follower.writes,
    x.follower.seen,
    x.follower.duplicates,
    x.follower.outOfOrder,
  ]),
)}

Median: **${f(feed.writesPerSecond.now, 0)} writes/s with the feed, ${f(feed.writesPerSecond.before, 0)} before it** (ratio ${f(feed.writesPerSecond.now / feed.writesPerSecond.before)}).

**Capacity per change** (${c.changes} changes, ${f(c.changes / c.worker.transactions, 1)} per numbering transaction), by AWS's billing rules as in §2:
${f(c.writeSide.wru)} WRU for the pending change in the write's own transaction, then ${f(c.worker.wru)} WRU and ${f(c.worker.rru)} RRU in the worker:
**${f(total)} WRU and ${f(c.worker.rru)} RRU a change**, ${usd(dollars)} per million changes on demand, plus one EventBridge event ($1.00 per million).
`);
  }
  if (sharing) {
    const rows = (cases: (typeof sharing.document.one)[]) => cases.map((m) => [m.label, f(m.p50), f(m.p99), m.requests, m.dynamodb, m.rru]);
    const header = (what: string) => [what, 'p50 ms', 'p99 ms', 'requests', 'DynamoDB', 'RRU (AWS)'];
    sections.push(`## 8. Scale of access

One request at a time, the cases taking turns, on a service of its own (its own table, seeded with the store's own calls in
${f(sharing.seedSeconds, 0)} s). Capacity is one request's, as AWS bills it.

${table(header('GET /document/{id}, caller'), rows([sharing.document.one, sharing.document.many]))}

Ratios 1,000 / 1: latency **${f(sharing.document.latencyRatio)}**, capacity **${f(sharing.document.capacityRatio)}**: the caller's role is one attribute of a
bucket item of the document's repository, read in the same BatchGetItem as the document.

${table(header(`GET /{id}/members?limit=${sharing.members.pageSize}, by the owner`), rows([sharing.members.few, sharing.members.many, sharing.members.deep]))}

Ratios 1,000 / 10 (the worse of the first and the middle page): latency **${f(sharing.members.latencyRatio)}**, capacity **${f(sharing.members.capacityRatio)}**.
`);
  }
  if (lifecycle) {
    const { move: m, bound: b } = lifecycle;
    sections.push(`## 9. Folder life cycle and the trash

A tree of ${n(b.folders + 1)} folders with ${n(b.documents)} documents of 1 KB, made in ${f(lifecycle.seedSeconds, 0)} s in a repository of its own.
**Moving a folder** (\`PUT /folder\` with a new \`parentId\`), the tree and an empty folder taking turns, the worker let catch up after
each; capacity is one move's, the least of 3 recorded.

${table(
  ['Folder moved', 'p50 ms', 'max ms', 'moves', 'DynamoDB', 'RRU / WRU (AWS)', 'RCU / WCU (local)'],
  [m.big, m.empty].map((x) => [x.label, f(x.p50), f(x.max), x.samples, x.dynamodb, `${x.rru} / ${x.wru}`, `${x.localRcu} / ${x.localWcu}`]),
)}

Ratios: latency **${f(m.latencyRatio)}**, capacity **${f(m.capacityRatio)}**. **The trash bound**: the tree deleted, restored, deleted again and
purged, each time from the request until the worker had settled, then every item below checked (${n(b.documents + b.folders)} items: the
${n(b.documents)} documents and ${n(b.folders)} folders below the deleted one).
${lifecycle.problems.length ? `\n**Not everything followed:**\n\n${lifecycle.problems.map((p) => `- ${p}`).join('\n')}\n` : ''}
${table(
  ['Step', 'answered (ms)', 'settled after (s)', 'items / s', 'checked afterwards'],
  b.phases.map((p) => [p.name, f(p.answerMs, 1), f(p.seconds, 1), n(p.itemsPerSecond), p.checked]),
)}
`);
  }
  if (soak) {
    sections.push(`## 10. Soak

${soak.clients} clients for ${soak.seconds} s on one repository: reads of documents (45%), of a folder's list (15%) and of \`GET /\` (5%); content
updates (15%), renames (5%), creates (10%) and deletes (5%) of documents other clients read and change at the same time. 4xx
answers are expected (a document one client deleted is 404 to the next); a 5xx is not. Then the table's invariants.

${table(
  ['Requests', 'Per second', 'p50 (ms)', 'p99 (ms)', '5xx', 'Invariant violations'],
  [[soak.requests, f(soak.rps, 0), f(soak.p50, 1), f(soak.p99, 1), soak.serverErrors, soak.violations.length]],
)}

Answers by status: ${Object.entries(soak.statuses)
      .map(([status, count]) => `${status} × ${count}`)
      .join(', ')}.${soak.violations.map((v) => `\n- ${v}`).join('')}
`);
  }
  if (r.conflicts) sections.push(conflictsSection(r.conflicts));
  if (r.files) sections.push(filesSection(r.files, cost));
  return sections.join('\n');
}

/** Writes the three files; returns the budget lines printed at the end. */
export async function writeReports(results: Results): Promise<string> {
  const cost = costs(results.durations, results.capacity);
  const list = budgets(results);
  const write = (file: string, text: string) => writeFile(join(import.meta.dirname, file), text);
  await write('results.json', `${JSON.stringify({ ...results, cost, budgets: list, prices }, null, 2)}\n`);
  await write('results.md', resultsMarkdown(results, cost, list));
  await write('access-patterns.md', accessPatterns(results.capacity));
  return list.map((b) => `${b.verdict.padEnd(12)} ${b.budget}: ${b.measured}`).join('\n');
}
