/**
 * What `npm run bench` writes, all of it under bench/: results.md (each scenario's section and
 * the budgets), results.json (every number) and access-patterns.md (the table
 * docs/data-model.md links to). Returns the budget lines printed at the end.
 */
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { memorySizes } from '#lib/function-settings';
import { BUDGETS, type Budget, budgets } from './budgets';
import { f, table } from './markdown';
import { prices } from './prices';
import { accessPatterns, type CapacityRow, capacitySection } from './scenarios/capacity';
import { type Bundle, type ColdStartRow, coldStartSection } from './scenarios/cold-start';
import { type CallProfile, type CostRow, costSection, costs, type DurationRow, priced } from './scenarios/cost';
import { type FeedResult, feedSection } from './scenarios/feed';
import { type LifecycleResult, lifecycleSection } from './scenarios/lifecycle';
import { type ScaleResult, scaleSection } from './scenarios/scale';
import { type SharingResult, sharingSection } from './scenarios/sharing';
import { type SoakResult, soakSection } from './scenarios/soak';
import { type ThroughputRow, throughputSection } from './scenarios/throughput';

export interface Results {
  seconds: number;
  durationSeconds: number;
  capacity: CapacityRow[];
  throughput: ThroughputRow[];
  scale: ScaleResult;
  coldStart: ColdStartRow[];
  durations: DurationRow[];
  cost: CostRow[];
  /** Where a read's warm CPU goes, handler against bare client (absent from older results). */
  callProfiles?: CallProfile[];
  /** The change feed under load (absent from results written before it existed). */
  feed?: FeedResult;
  /** Scale of access: reads by a user in many repositories, members lists of many members (absent from older results). */
  sharing?: SharingResult;
  /** Folder life cycle: moving a large tree, the trash bound, the background work's cost (absent from older results). */
  lifecycle?: LifecycleResult;
  /** The soak: mixed load from 64 clients, then the invariants. */
  soak?: SoakResult;
  /** The bundled files, for the cost scenario; not written. */
  bundles?: Bundle[];
}

const resultsMarkdown = (r: Results, list: Budget[]) => `# Benchmark results

Written by \`npm run bench\` (\`bench/run.ts\`) on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()},
DynamoDB Local 3.3 in memory, ${r.seconds} s per measured run, ${f(r.durationSeconds / 60, 1)} minutes in all. Absolute numbers move
with whatever else the machine runs; ratios measured back to back hold better. \`results.json\` has every number.

## Budgets

${table(
  ['Budget', 'Measured', 'Verdict'],
  list.map((b) => [b.budget, b.measured, `**${b.verdict}**${b.why ? ` — ${b.why}` : ''}`]),
)}

${throughputSection(r.throughput, r.seconds)}
${capacitySection(r.capacity)}
${scaleSection(r.scale)}
${coldStartSection(r.coldStart)}
${costSection(r.durations, r.cost, r.coldStart, BUDGETS.documentReadDollars, r.callProfiles)}
${r.feed ? feedSection(r.feed) : ''}
${r.sharing ? sharingSection(r.sharing) : ''}
${r.lifecycle ? lifecycleSection(r.lifecycle) : ''}
${r.soak ? soakSection(r.soak) : ''}`;

export async function writeReports(results: Results): Promise<string> {
  // Priced at the memory sizes configured now: \`--report\` after a change of lib/function-settings.ts re-prices.
  const durations = results.durations[0]?.route ? priced(results.durations) : results.durations;
  const r = durations === results.durations ? results : { ...results, durations, cost: costs(durations, results.capacity) };
  const list = budgets(r);
  const write = (file: string, text: string) => writeFile(join(import.meta.dirname, file), text);
  const { bundles: _, ...measured } = r;
  await write('results.json', `${JSON.stringify({ ...measured, budgets: list, prices, memorySizes }, null, 2)}\n`);
  await write('results.md', resultsMarkdown(r, list));
  await write('access-patterns.md', accessPatterns(r.capacity));
  return list.map((b) => `${b.verdict.padEnd(12)} ${b.budget}: ${b.measured}`).join('\n');
}
