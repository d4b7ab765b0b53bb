/** Writing the generated Markdown: tables padded as Biome formats them, so the files pass `npm run lint` as written. */

/** A number as written; none (a run with no answers has no latency: NaN, null in results.json) as a dash. */
export const f = (value: number | null, digits = 2) => (value === null || Number.isNaN(value) ? '—' : value.toFixed(digits));
export const kb = (bytes: number) => `${f(bytes / 1000, 1)} KB`;
export const usd = (value: number) => `$${f(value, 3)}`;
export const n = (value: number) => value.toLocaleString('en');

export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, i) => Math.max(3, ...cells.map((row) => [...(row[i] ?? '')].length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i]! - [...cell].length + cell.length)).join(' | ')} |`;
  return [line(cells[0]!), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n');
}

/** A table from its rows and its columns: each column's header, and what a row shows in it. */
export const tableOf = <T>(rows: readonly T[], columns: Record<string, (row: T, i: number) => string | number>) =>
  table(
    Object.keys(columns),
    rows.map((row, i) => Object.values(columns).map((cell) => cell(row, i))),
  );
