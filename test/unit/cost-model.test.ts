/**
 * What the prod stack costs, computed from its synthesized templates (bench/cost-model.ts): idle
 * and at a million API calls a day. A change that adds an alarm metric, a dashboard, a secret,
 * a per-route dimension or a log line a request fails here when it breaks a budget.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceMetrics } from '#core/metrics';
import { projectRoot } from '#lib/bundling';
import { buildApp, projectContext } from '#lib/stack/app';
import {
  costs,
  idleCost,
  monthlyCost,
  perMillionCalls,
  type StackTemplate,
  searchDatabaseFloor,
  searchIdleCost,
  searchPerMillion,
  searchPrices,
  standingFactsOf,
} from '../../bench/cost-model';
import type { Results } from '../../bench/results';

/** Idle: $2 a month outside the free tier. */
const IDLE_BUDGET = 2;
/** Observability: at most 15% of the bill at a million calls a day. */
const OBSERVABILITY_SHARE_BUDGET = 0.15;
const REQUESTS_PER_DAY = 1_000_000;

function templatesOf(env: string): StackTemplate[] {
  const { app } = buildApp({ context: { ...projectContext(), 'aws:cdk:bundling-stacks': [], env } });
  const { directory } = app.synth();
  return readdirSync(directory)
    .filter((file) => file.endsWith('.template.json'))
    .map((file) => JSON.parse(readFileSync(join(directory, file), 'utf8')) as StackTemplate);
}

// Every metric by `service` alone: a dimension per route would multiply the route metrics.
const customMetrics = Object.values(serviceMetrics).length;
const prod = standingFactsOf(templatesOf('prod'), customMetrics);
const results = JSON.parse(readFileSync(join(projectRoot, 'bench', 'results.json'), 'utf8')) as Results;
const perMillion = perMillionCalls(costs(results.durations, results.capacity));

describe('prod, from its templates', () => {
  it(`costs at most $${IDLE_BUDGET} a month idle`, () => {
    const idle = idleCost(prod);
    console.info(
      `idle: ${idle.lines.map((l) => `${l.item} ${Math.round(l.count)} $${l.dollars.toFixed(2)}`).join(', ')}; total $${idle.total.toFixed(2)}`,
    );
    expect(idle.total).toBeLessThanOrEqual(IDLE_BUDGET);
  });

  it(`spends at most ${OBSERVABILITY_SHARE_BUDGET * 100}% of the bill on observability at a million calls a day`, () => {
    const month = monthlyCost(prod, REQUESTS_PER_DAY, perMillion);
    console.info(
      `1M/day: requests $${month.requests.toFixed(2)} ($${perMillion.toFixed(3)} per million calls), observability $${month.observabilityDollars.toFixed(2)} (${month.observability
        .map((l) => `${l.item} $${l.dollars.toFixed(2)}`)
        .join(', ')}), share ${(100 * month.observabilityShare).toFixed(1)}%`,
    );
    expect(month.observabilityShare).toBeLessThanOrEqual(OBSERVABILITY_SHARE_BUDGET);
  });

  it('reads what the templates hold: every alarm metric, the dashboard, the secret, the sweeper’s schedule, the log levels', () => {
    expect(prod.alarms).toBeGreaterThan(0);
    expect(prod.alarmMetrics).toBeGreaterThanOrEqual(prod.alarms);
    expect(prod.secrets).toBe(1);
    // The search cluster's secret and its minimum capacity are its floor, priced apart (a warm 0.5 ACU in prod).
    expect(prod.databaseSecrets).toBe(1);
    expect(prod.databaseMinCapacity).toBe(0.5);
    expect(searchDatabaseFloor(prod).total).toBeCloseTo(0.4 + 0.5 * 0.12 * 730, 2);
    expect(prod.scheduledInvocations).toBeGreaterThan(0);
    expect(prod).toMatchObject({ dashboards: 0, requestLine: false, platformLines: false, tracedFunctions: 0 });
    // A dashboard or a per-function alarm would show: the same model on an environment that asks for one.
    expect(idleCost({ ...prod, dashboards: 1 }).total).toBeGreaterThan(IDLE_BUDGET);
  });
});

describe('search: idle and per million searches', () => {
  const facts = { queryMs: 20, functionMs: 40, readUnits: 2, responseBytes: 10_000 };

  it('prices a search: the API, the function, the memberships, one Data API request and 4 ACU-ms per ms of query', () => {
    const { lines, total } = searchPerMillion(facts, 512);
    const line = (prefix: string) => lines.find((l) => l.item.startsWith(prefix))!;
    expect(line('Data API').dollars).toBe(searchPrices.dataApiPerMillion);
    // 20 ms of one CPU = 80 ms of an ACU (a quarter of a vCPU): 0.08 ACU-s × 10^6 × $0.12 / 3600.
    expect(line('ACU').dollars).toBeCloseTo(0.08 * 1e6 * (0.12 / 3600), 6);
    expect(line('Lambda ms').dollars).toBeCloseTo(0.5 * 0.04 * 0.0000133334 * 1e6, 6);
    expect(total).toBeCloseTo(
      lines.reduce((sum, l) => sum + l.dollars, 0),
      9,
    );
    // A response over 32 KB is metered as two Data API requests.
    const big = searchPerMillion({ ...facts, responseBytes: 40_000 }, 512);
    expect(big.total - total).toBeCloseTo(searchPrices.dataApiPerMillion, 9);
  });

  it('an auto-paused database costs its secret and its storage only', () => {
    const paused = searchIdleCost(prod, 2);
    expect(paused.total).toBeCloseTo(0.4 + 2 * 0.1, 9);
    expect(paused.lines.map((l) => l.item)).not.toContain('minimum ACU, all month');
  });
});
