/**
 * Seeds of randomised tests: a new one each run (so that runs explore), printed when taken, and
 * named in the message of any failure, so that the failing run can be replayed:
 * `SEED=<seed> npx vitest run <file>` (or the test's own variable, e.g. FEED_FOLLOWER_SEED).
 */
import { randomInt } from 'node:crypto';

export interface Seed {
  label: string;
  value: number;
  /** The command line that replays it. */
  replay: string;
}

/** The seed for `label`: from `variable` or SEED when set, else a new one. */
export function takeSeed(label: string, file: string, variable = 'SEED'): Seed {
  const given = process.env[variable] ?? process.env.SEED;
  const value = given === undefined || given === '' ? randomInt(2 ** 31) : Number(given);
  if (!Number.isSafeInteger(value)) throw new Error(`${variable}=${given}: not a whole number`);
  const seed = { label, value, replay: `${variable}=${value} npx vitest run ${file}` };
  console.log(`[seed] ${label}: ${value} (replay: ${seed.replay})`);
  return seed;
}

/** Runs `run`; a failure's message starts with the seed and how to replay it. */
export async function withSeed<T>(seed: Seed, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Error) {
      const named = `[${seed.label}: seed ${seed.value}; replay: ${seed.replay}] `;
      error.message = named + error.message;
      if (error.stack) error.stack = named + error.stack;
    }
    throw error;
  }
}
