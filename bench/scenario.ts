/** What a scenario is and gets: it measures, and returns its part of the results (bench/results.ts). */
import type { Fixture } from './fixture';
import type { Target } from './load';
import type { Client } from './processes';
import type { Results } from './results';
import type { ServiceHandlers } from './service';

export interface Bench {
  service: Client<ServiceHandlers>;
  target: Target;
  fixture: Fixture;
  /** Length of each measured run. */
  seconds: number;
  /** A Lambda function's environment here: the table, DynamoDB Local, credentials. */
  lambdaEnv: Record<string, string>;
  /** A directory of its own, removed at the end. */
  scratch: string;
  log(line: string): void;
}

export interface Scenario {
  /** For BENCH_ONLY. */
  name: string;
  title: string;
  run(bench: Bench): Promise<Partial<Results>>;
}
