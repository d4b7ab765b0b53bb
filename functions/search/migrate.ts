/** Applies the search index's migrations at deploy (a CDK trigger, lib/stack/search-index.ts): idempotent. */
import { logger } from '#core/logger';
import { migrate } from '#core/search/migrate';

export async function handler(): Promise<{ applied: number[] }> {
  const applied = await migrate();
  logger.info('search migrations', { applied });
  return { applied };
}
