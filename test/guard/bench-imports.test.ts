/**
 * The bench's shape (fast tier): a scenario measures and returns numbers, one module renders
 * them (bench/report.ts), the budgets read results (bench/budgets.ts) — so bench's modules
 * import one another without a circle, neither the report nor the budgets reach a scenario, and
 * no scenario reaches the report or the budgets. Every import counts: type-only and dynamic too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { projectRoot } from './aws-actions';

const bench = join(projectRoot, 'bench');
type Graph = Map<string, string[]>;

/** bench's modules (paths relative to bench/) and the bench modules each imports. */
function benchGraph(): Graph {
  const files = (readdirSync(bench, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
  const graph: Graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(bench, file), 'utf8'), true, true);
    const local = importedFiles.map((i) => i.fileName).filter((name) => name.startsWith('.'));
    graph.set(
      file,
      local.map((name) => relative(bench, resolve(bench, dirname(file), name.endsWith('.ts') ? name : `${name}.ts`))),
    );
  }
  return graph;
}

/** Each circle found, as the modules along it (first = last). */
function circles(graph: Graph): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const visit = (node: string, path: string[]) => {
    const at = path.indexOf(node);
    if (at !== -1) return found.push([...path.slice(at), node]);
    if (done.has(node)) return;
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    done.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  return found;
}

/** Every module `from` reaches through its imports. */
function reached(graph: Graph, from: string): Set<string> {
  const seen = new Set<string>();
  const walk = (node: string) => {
    for (const next of graph.get(node) ?? []) if (!seen.has(next) && seen.add(next)) walk(next);
  };
  walk(from);
  return seen;
}

describe("bench's imports", () => {
  const graph = benchGraph();
  const scenarios = [...graph.keys()].filter((file) => file.startsWith('scenarios/'));

  it('reads the modules and their imports', () => {
    expect(scenarios.length).toBeGreaterThan(5);
    expect(graph.get('run.ts')).toContain('report.ts');
    for (const [file, imports] of graph) for (const target of imports) expect(graph.has(target), `${file} imports ${target}`).toBe(true);
  });

  it('finds a circle where there is one', () => {
    const sample: Graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(circles(sample)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(circles(new Map([['a.ts', ['b.ts']]]))).toEqual([]);
  });

  it('has no import circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('keeps the report and the budgets away from the scenarios, and the scenarios away from them', () => {
    for (const reader of ['report.ts', 'budgets.ts'])
      expect([...reached(graph, reader)].filter((file) => file.startsWith('scenarios/'))).toEqual([]);
    for (const scenario of scenarios)
      expect([...reached(graph, scenario)].filter((file) => ['report.ts', 'budgets.ts'].includes(file))).toEqual([]);
  });
});
