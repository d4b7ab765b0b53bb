/**
 * The one module that renders what `npm run bench` measured, all of it under bench/: results.md
 * (the budgets, then a numbered section per scenario; how each was measured is its scenario
 * file's header), results.json (every number, the costs, the budgets, the prices) and
 * access-patterns.md (the table docs/data-model.md links to). Costs are priced here, at the
 * memory sizes configured now.
 */
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { VERIFY_INLINE_BYTES } from '#core/use-cases/finish-upload';
import { memorySizes, timeoutSeconds } from '#lib/function-settings';
import { type Budget, budgets } from './budgets';
import { type CostRow, costs, fileCosts, MB_PER_VCPU, prices, READ_FLOOR } from './cost-model';
import { f, kb, n, tableOf, usd } from './markdown';
import {
  type CapacityRow,
  EMPTY,
  FLOOR_PREFIX,
  type HashingResult,
  type LinkLatencyRow,
  PROFILED,
  type Results,
  type SearchResult,
  type WebAppResult,
} from './results';

const bold = (text: string | number) => `**${text}**`;

/**
 * Issue 35's writes, as this report measured them on 2026-11-27 before the change (layout 4,
 * 8 role lanes): AWS write units, for the before → now table of §2.
 */
const WRITES_BEFORE: Record<string, number> = { 'POST /': 28, 'POST /document': 24, 'PUT /document': 22, 'PUT /{id}/members/{userId}': 28 };
const writesBeforeAndNow = (rows: CapacityRow[]) =>
  tableOf(
    rows.filter((row) => row.endpoint in WRITES_BEFORE),
    {
      Endpoint: (row) => row.endpoint,
      'WRU before': (row) => WRITES_BEFORE[row.endpoint]!,
      'WRU now': (row) => bold(row.aws.write),
      change: (row) => `${f((100 * (row.aws.write - WRITES_BEFORE[row.endpoint]!)) / WRITES_BEFORE[row.endpoint]!, 0)}%`,
    },
  );
const capacityTable = (rows: CapacityRow[]) =>
  tableOf(rows, {
    Endpoint: (r) => r.endpoint,
    'DynamoDB requests': (r) => r.requests,
    'Round trips': (r) => `${r.roundTrips}${r.minimumRoundTrips === r.roundTrips ? '' : ` (min ${r.minimumRoundTrips})`}`,
    'Items read; written': (r) => `${r.items.reads.join(', ') || '—'}; ${r.items.writes.join(', ') || '—'}`,
    'RRU / WRU (AWS)': (r) => `${r.aws.read} / ${r.aws.write}`,
    Minimum: (r) => `${r.minimum.read} / ${r.minimum.write}`,
    'Local RCU / WCU': (r) => `${r.local.read} / ${r.local.write}`,
  });

/** The sections of results.md, in order (numbered so): title, then text and tables. */
function sections(r: Results, cost: CostRow[]): [string, string][] {
  const profiled = r.throughput.find((row) => row.ratios)!;
  const doc = cost.find((row) => row.endpoint === PROFILED.endpoint)!;
  const { feed, sharing, lifecycle, files } = r;
  const change = feed.perChange;
  const changeWru = change.writeSide.wru + change.worker.wru;
  const fileCost = fileCosts(cost, files);
  const tooLong = fileCost.rows.find((row) => row.checkSeconds > timeoutSeconds);
  const items = lifecycle.bound.documents + lifecycle.bound.folders;
  return [
    [
      'Throughput and latency',
      `Each endpoint through the local server against its store call made directly (\`bench/scenarios/throughput.ts\`), ${r.seconds} s
each; ms. Ratio: service / baseline requests per second; ${PROFILED.endpoint} at ${PROFILED.concurrency}: three rounds (${profiled.ratios!.map((x) => f(x)).join(', ')}), the median shown.

${tableOf(r.throughput, {
  Endpoint: (t) => t.endpoint,
  c: (t) => t.concurrency,
  'service req/s': (t) => f(t.service.rps, 0),
  'service p50': (t) => f(t.service.p50),
  'service p99': (t) => f(t.service.p99),
  'baseline req/s': (t) => f(t.baseline.rps, 0),
  'baseline p50': (t) => f(t.baseline.p50),
  'baseline p99': (t) => f(t.baseline.p99),
  ratio: (t) => bold(f(t.ratio)),
  errors: (t) => t.service.errors + t.baseline.errors,
})}`,
    ],
    [
      'Round trips and capacity',
      `One call of each endpoint with a 1 KB document (\`bench/scenarios/capacity.ts\`). \`A ∥ B\`: sent together, one round trip;
\`A → B\`: one after the other. **AWS RRU / WRU** applies DynamoDB's billing rules to the items' sizes (\`bench/recorder.ts\`):
1 RRU per 4 KB of each item read strongly consistently (a missing one costs 1) and of a Query's page, 2 WRU per KB of the
larger image of each transaction item, a ConditionCheck billed as such a write.¹ **Minimum**: only the items the endpoint
cannot do without (\`bench/endpoints.ts\`). **Local**: what DynamoDB Local 3.3 reports; it under-counts transactions.

${capacityTable(r.capacity)}

**Writes without duplicates** (issue 35: −30% on POST /, POST /document and PUT /document with new text): before, as
measured on 2026-11-27 (8 role lanes, a revision item written by each version); now, the table above. What each of
these writes puts and checks, and why PUT /document stays at 20: [docs/data-model.md](../docs/data-model.md#where-content-lives).

${writesBeforeAndNow(r.capacity)}

¹ Measured against DynamoDB (AWS's pages do not say): https://martinhicks.dev/articles/what-a-conditional-dynamodb-transaction-costs.
Why changes take two round trips: [docs/data-model.md](../docs/data-model.md#writes-one-transaction-conditions-decide).`,
    ],
    [
      'Scale',
      `GET /folder/{id}/documents?limit=50, one request at a time, the folders taking turns (\`bench/scenarios/scale.ts\`; 50,000
documents seeded in ${f(r.scale.seedSeconds, 0)} s). Ratio big / small (p50): **${f(r.scale.ratio)}**.

${tableOf(
  [
    { folder: 'small', ...r.scale.small },
    { folder: 'big, first page', ...r.scale.big },
    { folder: `big, page at ${r.scale.deepPage.position}`, documents: r.scale.big.documents, ...r.scale.deepPage },
  ],
  {
    Folder: (s) => s.folder,
    Documents: (s) => s.documents,
    'p50 ms': (s) => f(s.p50),
    'p99 ms': (s) => f(s.p99),
    requests: (s) => s.samples,
  },
)}`,
    ],
    [
      'Cold start',
      `Every function bundled as the stack bundles it, and an empty handler (\`bench/scenarios/cold-start.ts\`). **Load**: median over
${r.coldStart[0]!.runs} fresh Node processes from the process's start until \`import()\` of the bundle resolved; **import**: the \`import()\` alone.

${tableOf(r.coldStart, {
  Function: (c) => c.name,
  Handler: (c) => c.handler,
  Minified: (c) => kb(c.bytes),
  gzip: (c) => kb(c.gzipBytes),
  'Load ms': (c) => f(c.loadMs, 1),
  'Import ms': (c) => f(c.importMs, 1),
  '× empty': (c) => (c.name === EMPTY ? '1.00' : bold(f(c.loadRatio))),
  '× floor': (c) => (c.floorRatio === undefined ? '' : `${bold(f(c.floorRatio))} (${c.floor!.slice(FLOOR_PREFIX.length)})`),
})}`,
    ],
    [
      'Cost',
      `Dollars per million calls at ${prices.region} list prices checked on **${prices.checked}** (\`bench/cost-model.ts\`), from each function's
warm CPU and wait per call (\`bench/scenarios/cost.ts\`; the CPU scaled to the memory's share of a vCPU, one at ${MB_PER_VCPU} MB) and the
capacity of §2. Free tiers, logs and data transfer left out.

${tableOf(cost, {
  Endpoint: (c) => c.endpoint,
  'CPU ms': (_, i) => f(r.durations[i]!.cpuMs, 3),
  'CPU p99': (_, i) => f(r.durations[i]!.cpuP99, 3),
  'wait ms': (_, i) => f(r.durations[i]!.waitMs),
  MB: (c) => c.memorySize,
  'Billed ms': (c) => c.billedMs,
  'RRU / WRU': (c) => `${c.readUnits} / ${c.writeUnits}`,
  'Lambda duration': (c) => usd(c.lambdaDuration),
  DynamoDB: (c) => usd(c.dynamodb),
  'Total per million': (c) => bold(usd(c.total)),
})}

**${PROFILED.endpoint}.** HTTP API and the Lambda request cost $${f(prices.httpApiPerMillion + prices.lambdaRequestsPerMillion)} per million; the strongly consistent read makes it
${usd(READ_FLOOR)}, and the caller's role, in the same request, one more RRU: **${usd(READ_FLOOR + prices.dynamodbReadPerMillionUnits)} with no Lambda time at all**.
${doc.billedMs} ms at ${doc.memorySize} MB add ${usd(doc.lambdaDuration)}: **${usd(doc.total)}**.`,
    ],
    [
      'Files',
      `A file of ${n(files.mib)} MiB in ${files.partCount} parts of ${f(files.partSize / 1024 ** 2, 0)} MiB, ${files.parallel} at a time, through the service's flow (what \`npm run upload\`
does) and straight to the S3 emulator; then GET /document/{id}/content's redirect against a GetObject (\`bench/scenarios/files.ts\`).
MB/s are 10^6 bytes a second; RSS: the service process's peak growth during the upload (it runs the emulator too).

${tableOf(files.rounds, {
  Round: (_, i) => i + 1,
  'upload via service': (x) => f(x.upload.service, 0),
  'of which complete (s)': (x) => f(x.completeSeconds, 1),
  'upload direct': (x) => f(x.upload.direct, 0),
  'upload ratio': (x) => f(x.upload.service / x.upload.direct),
  'download via redirect': (x) => f(x.download.service, 0),
  GetObject: (x) => f(x.download.direct, 0),
  'download ratio': (x) => f(x.download.service / x.download.direct),
  'RSS + MB (service / direct)': (x) => `${f(x.rssMb.service, 0)} / ${f(x.rssMb.direct, 0)}`,
})}

Medians: upload **${f(files.upload.service, 0)} vs ${f(files.upload.direct, 0)} MB/s, ratio ${f(files.upload.ratio)}**, download **${f(files.download.service, 0)} vs ${f(files.download.direct, 0)} MB/s, ratio ${f(files.download.ratio)}**
(a ratio is the median of the rounds' ratios); RSS growth at most **+${f(files.rssGrowthMb.service, 0)} MB** (direct: +${f(files.rssGrowthMb.direct, 0)} MB). The complete (median
${f(files.completeSeconds, 1)} s) reads the object back to check its SHA-256; over ${VERIFY_INLINE_BYTES / 1024 ** 2} MiB it answers 202 and the client asks again.

**Cost on AWS** (\`fileCosts\` in \`bench/cost-model.ts\`): the API calls as §5 prices them, the Lambda time checking the bytes, S3 requests at
$${prices.s3PutPerThousand} per 1,000 PUT/POST and $${prices.s3GetPerThousand} per 1,000 GET; storage **$${prices.s3PerGbMonth} per GB-month** of every kept version.

${tableOf(fileCost.rows, {
  'Dollars per million': (c) => c.operation,
  'API calls': (c) => c.calls,
  API: (c) => usd(c.api * 1e6),
  'Lambda checking': (c) => (c.checkSeconds ? `${usd(c.check * 1e6)} (${f(c.checkSeconds, 2)} s each)` : '—'),
  'S3 requests': (c) => usd(c.s3 * 1e6),
  Total: (c) => bold(usd(c.total * 1e6)),
})}
${fileCost.standIns.length ? `\nPriced as the costliest measured endpoint of their kind: ${fileCost.standIns.join(', ')}.\n` : ''}${tooLong ? `\n**Checking 1 GiB in one function would take ${f(tooLong.checkSeconds, 0)} s at ${memorySizes.write} MB, more than its ${timeoutSeconds} s timeout.**` : ''}`,
    ],
    [
      'The change feed',
      `Writes per second into one repository, ${feed.clients} clients updating 300 documents of 1 KB, ${feed.seconds} s per run, with the feed
against the service at \`${feed.commit}\` (before it), taking turns; a follower read the feed from \`latest\` meanwhile (\`bench/scenarios/feed.ts\`).

${tableOf(feed.rounds, {
  Round: (_, i) => i + 1,
  [`${feed.commit} writes/s`]: (x) => f(x.before.rps, 0),
  'now writes/s': (x) => f(x.now.rps, 0),
  ratio: (x) => f(x.now.rps / x.before.rps),
  'writes committed (now)': (x) => x.follower.writes,
  'follower saw': (x) => x.follower.seen,
  twice: (x) => x.follower.duplicates,
  'out of order': (x) => x.follower.outOfOrder,
})}

Median: **${f(feed.writesPerSecond.now, 0)} writes/s with the feed, ${f(feed.writesPerSecond.before, 0)} before it** (ratio ${f(feed.writesPerSecond.now / feed.writesPerSecond.before)}).
**Capacity per change** (${change.changes} changes, ${f(change.changes / change.worker.transactions, 1)} per numbering transaction), billed as in §2: ${f(change.writeSide.wru)} WRU in the
write's own transaction, then ${f(change.worker.wru)} WRU and ${f(change.worker.rru)} RRU in the worker: **${f(changeWru)} WRU and ${f(change.worker.rru)} RRU a change**,
${usd(changeWru * prices.dynamodbWritePerMillionUnits + change.worker.rru * prices.dynamodbReadPerMillionUnits)} per million changes on demand, plus one EventBridge event ($1.00 per million).`,
    ],
    [
      'Scale of access',
      `GET /document/{id} by a user in 1 and in 1,000 repositories, one request at a time, taking turns (\`bench/scenarios/sharing.ts\`;
seeded in ${f(sharing.seedSeconds, 0)} s). Ratios: latency **${f(sharing.document.latencyRatio)}**, capacity **${f(sharing.document.capacityRatio)}**: the caller's role is one attribute
of a bucket item of the document's repository, read in the same BatchGetItem as the document.

${tableOf([sharing.document.one, sharing.document.many], {
  Caller: (m) => m.label,
  'p50 ms': (m) => f(m.p50),
  'p99 ms': (m) => f(m.p99),
  requests: (m) => m.requests,
  DynamoDB: (m) => m.dynamodb,
  'RRU (AWS)': (m) => m.rru,
})}`,
    ],
    ...(r.hashing ? [hashingSection(r.hashing)] : []),
    ...(r.search ? [searchSection(r.search)] : []),
    [
      'Folder life cycle and the trash',
      `A tree of ${n(lifecycle.bound.folders + 1)} folders with ${n(lifecycle.bound.documents)} documents of 1 KB (made in ${f(lifecycle.seedSeconds, 0)} s; \`bench/scenarios/lifecycle.ts\`).
**Moving a folder**, the tree and an empty folder taking turns; capacity is one move's, the least of 3. Ratios: latency
**${f(lifecycle.move.latencyRatio)}**, capacity **${f(lifecycle.move.capacityRatio)}**.

${tableOf([lifecycle.move.big, lifecycle.move.empty], {
  'Folder moved': (x) => x.label,
  'p50 ms': (x) => f(x.p50),
  'max ms': (x) => f(x.max),
  moves: (x) => x.samples,
  DynamoDB: (x) => x.dynamodb,
  'RRU / WRU (AWS)': (x) => `${x.rru} / ${x.wru}`,
  'RCU / WCU (local)': (x) => `${x.localRcu} / ${x.localWcu}`,
})}

**The trash bound**: the tree deleted, restored, deleted again and purged, each from the request until the worker had
settled, then all ${n(items)} items below checked.
${lifecycle.problems.map((p) => `\n- **Not as it must be:** ${p}`).join('')}
${tableOf(lifecycle.bound.phases, {
  Step: (p) => p.name,
  'answered (ms)': (p) => f(p.answerMs, 1),
  'settled after (s)': (p) => f(p.seconds, 1),
  'items / s': (p) => n(p.itemsPerSecond),
  'checked afterwards': (p) => p.checked,
})}`,
    ],
    ...(r.links ? [linksSection(r.links, r.capacity, r.hashing)] : []),
    ...(r.webApp ? [webAppSection(r.webApp)] : []),
  ];
}

/** Each link endpoint's latency beside its round trips and capacity (§2), and the password check (§9) it includes. */
function linksSection(rows: LinkLatencyRow[], capacity: CapacityRow[], hashing: HashingResult | undefined): [string, string] {
  const joined = rows.flatMap((row) => {
    const units = capacity.find((c) => c.endpoint === row.endpoint);
    return units ? [{ ...row, units }] : [];
  });
  return [
    'Share links',
    `Each link endpoint through the local server, one request at a time, ${rows[0]?.requests ?? 0} after a warm-up (\`bench/scenarios/links.ts\`); its
DynamoDB requests, round trips and capacity are its row of §2. *Opened*: the link was opened less than a minute before, so
\`lastUsedAt\` is not due; *first in a minute*: it is. A password route's time is mostly its scrypt check${
      hashing ? ` (§9: p50 ${f(hashing.scrypt.p50Ms, 0)} ms here, one core; a 512 MB function has about a third of one)` : ''
    }. Why each request is there: [docs/data-model.md](../docs/data-model.md#share-links).

${tableOf(joined, {
  Endpoint: (x) => x.endpoint,
  'DynamoDB requests': (x) => x.units.requests,
  'Round trips': (x) => x.units.roundTrips,
  'RRU / WRU (AWS)': (x) => `${x.units.aws.read} / ${x.units.aws.write}`,
  'p50 ms': (x) => f(x.p50),
  'p99 ms': (x) => f(x.p99),
})}`,
  ];
}

function searchSection(s: SearchResult): [string, string] {
  const mb = (bytes: number) => f(bytes / 1e6, 0);
  return [
    'Search',
    `${n(s.documents)} documents in the index of one repository, ${n(s.longDocuments)} of them with ~10 KB of text, the rest ~300 bytes, and ${s.pdfs} PDFs
(\`bench/scenarios/search.ts\`). The ${n(s.documents)} were written straight into the index with the indexer's own write (\`upsertItem\`),
one table row each (through the API and the worker, at the stream's rate below, they would take ${f(s.documents / s.stream.perSecond / 60, 0)} minutes); the PDFs and every write of the freshness
runs went through the API and the worker. **Index build: ${n(s.build.perSecond)} documents/s** (${f(s.build.seconds, 0)} s; the table and its indexes ${mb(s.build.tableBytes)} MB).
The search database is on disk with its page cache, as \`npm start\` runs it (docs/local-runtime.md).

**Search**, the queries ${s.queries.map((q) => `\`${q}\``).join(', ')} taking turns, a page of 20. The same SQL straight on PGlite is what the
route sends after reading the caller's memberships.

${tableOf(
  [
    { label: 'through the local stack, one at a time', ...s.oneAtATime.service },
    { label: 'the same SQL on PGlite, one at a time', ...s.oneAtATime.bare },
    { label: 'common words alone, through the stack', ...s.commonWords },
  ],
  { Search: (x) => x.label, 'p50 ms': (x) => f(x.p50, 1), 'p95 ms': (x) => f(x.p95, 1), searches: (x) => x.samples },
)}
${
  s.perQuery
    ? `
Each query of those runs alone:

${tableOf(s.perQuery, {
  Query: (x) => `\`${x.q}\``,
  'stack p50 ms': (x) => f(x.service.p50, 1),
  'stack p95 ms': (x) => f(x.service.p95, 1),
  'PGlite p50 ms': (x) => f(x.bare.p50, 1),
  'PGlite p95 ms': (x) => f(x.bare.p95, 1),
  searches: (x) => x.service.samples,
})}
`
    : ''
}
${s.throughput.concurrency} at a time: the stack **${f(s.throughput.service, 1)}/s**, the bare SQL ${f(s.throughput.bare, 1)}/s: **ratio ${f(s.throughput.ratio)}**
(${s.throughput.errors} errors). PGlite answers one statement at a time, so both sides queue on it.

**Freshness** (the write's request until \`GET /search\` finds it, polled every 20 ms):

${tableOf(s.freshness, {
  Write: (x) => x.kind,
  'p50 ms': (x) => f(x.p50, 0),
  'p95 ms': (x) => f(x.p95, 0),
  'max ms': (x) => f(x.max, 0),
  writes: (x) => x.samples,
})}

**Through the stream**: ${n(s.stream.documents)} documents written to the table were numbered and indexed by the worker in ${f(s.stream.seconds, 0)} s
(${n(s.stream.perSecond)}/s). **Rebuild** of the whole table (\`reindex\`, as \`npm run reindex -- --fresh\`): ${n(s.reindex.items)} items in
${f(s.reindex.seconds, 0)} s, **${n(s.reindex.perSecond)}/s**${
      s.reindex.withoutChanges
        ? ` (${n(s.reindex.withoutChanges)} of them documents written to the table without their changes, as a restored backup has them: only the rebuild indexes them)`
        : `: 100,000 documents in about ${f(s.reindex.projected100kSeconds / 60, 0)} minutes at that rate (measured on the table's items, not on 100,000)`
    }.

**Cost** (\`bench/cost-model.ts\`, its assumptions there): **${usd(s.cost.perMillion)} per million searches**
(${s.cost.lines.map((line) => `${line.item} ${usd(line.dollars)}`).join(', ')}); an auto-paused database: **${usd(s.cost.idleMonth)} a month**
(its secret and ${f(s.cost.storageGb, 2)} GB of storage); a warm floor of 0.5 ACU: $43.80 a month more.`,
  ];
}

function webAppSection(w: WebAppResult): [string, string] {
  const upload = w.upload;
  return [
    'The web app in Chromium',
    `Debian's Chromium, headless, through the local stack, signed in by the development sign-in (\`bench/scenarios/web-app.ts\`).

- **A folder of ${n(w.folder.items)} documents**, from the navigation's start (median of ${w.runs} rounds after a warm-up): first rows drawn
  **${f(w.folder.firstRowsMs, 0)} ms**, all ${n(w.folder.items)} loaded ${f(w.folder.allMs, 0)} ms (rounds: ${w.folder.rounds.map((round) => `${round.firstRowsMs}/${round.allMs}`).join(', ')} ms).
- **A folder of ${n(w.scroll.items)}**: loaded in ${f(w.scroll.loadMs, 0)} ms, then scrolled top to bottom in ${w.scroll.steps} steps, each step
  the time until the frame after it was painted (two animation frames, 33.3 ms at 60 Hz): p50 **${f(w.scroll.frameP50, 1)} ms**, p95 ${f(w.scroll.frameP95, 1)} ms,
  max ${f(w.scroll.frameMax, 1)} ms; at most **${w.scroll.maxRows} rows** in the DOM (the list is virtualised).${
    upload
      ? `
- **The upload panel against the CLI** (\`npm run upload\`), one file of ${n(upload.mib)} MiB end to end, ${upload.rounds.length} rounds, the sides taking
  turns first: app **${f(upload.app, 0)} MB/s**, CLI ${f(upload.cli, 0)} MB/s, ratio **${f(upload.ratio)}** (rounds: ${upload.rounds
    .map((round) => `${f(round.app, 0)}/${f(round.cli, 0)}`)
    .join(', ')} MB/s app/CLI).`
      : ''
  }`,
  ];
}

function hashingSection(h: HashingResult): [string, string] {
  return [
    'Hashing: upload verification and link passwords',
    `${h.mib} MiB in ${h.chunkKiB} KiB chunks, rounds taking turns, medians (\`bench/scenarios/hashing.ts\`). The verify task's resumable SHA-256
(hash-wasm, its state saved between invocations): **${f(h.resumableMBs, 0)} MB/s**, against Node's \`createHash\` (OpenSSL) **${f(h.opensslMBs, 0)} MB/s**
(ratio ${f(h.ratio)}). At the worker's ${h.workerMemoryMb} MB (its share of a vCPU), **5 TiB takes ${f(h.fiveTiB.hours, 1)} h to verify**, ${n(Math.round(h.fiveTiB.gbSeconds))} GB-s,
**${usd(h.fiveTiB.dollars)}** of Lambda (S3 reads not counted).

A share link's password check, scrypt N = ${n(h.scrypt.N)}, r = ${h.scrypt.r}, p = ${h.scrypt.p} (${f((128 * h.scrypt.N * h.scrypt.r) / 1024 ** 2, 0)} MiB of memory):
**p50 ${f(h.scrypt.p50Ms, 0)} ms**, p95 ${f(h.scrypt.p95Ms, 0)} ms over ${h.scrypt.checks} checks on one core here (a 512 MB function has about a third of a vCPU).`,
  ];
}

function resultsMarkdown(r: Results, cost: CostRow[], list: Budget[]): string {
  const header = `# Benchmark results

Written by \`npm run bench\` (\`bench/run.ts\`) on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()},
DynamoDB Local 3.3 in memory, ${r.seconds} s per measured run, ${f(r.durationSeconds / 60, 1)} minutes in all. Absolute numbers move
with whatever else the machine runs; ratios measured back to back hold better. \`results.json\` has every number.

## Budgets

${tableOf(list, { Budget: (b) => b.budget, Measured: (b) => b.measured, Verdict: (b) => `**${b.verdict}**${b.why ? ` — ${b.why}` : ''}` })}
`;
  return [header, ...sections(r, cost).map(([title, body], i) => `## ${i + 1}. ${title}\n\n${body}\n`)].join('\n');
}

const accessPatterns = (rows: CapacityRow[]) => `# Access patterns, measured

Written by \`npm run bench\`: one call of each endpoint with a 1 KB document. How each column is counted:
[results.md §2](results.md#2-round-trips-and-capacity).

${capacityTable(rows)}
`;

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
