/**
 * Applies the search index's migrations at deploy: the handler of a CloudFormation custom
 * resource (lib/stack/search-index.ts), which answers CloudFormation itself at the request's
 * presigned `ResponseURL` ("Custom resource response objects", CloudFormation user guide), so
 * the stack needs no provider function. Idempotent; a Delete changes nothing (the index goes
 * with the cluster).
 */
import { logger } from '#core/logger';
import { migrate } from '#core/search/migrate';

interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  PhysicalResourceId?: string;
}

export async function handler(event: CustomResourceEvent): Promise<void> {
  let status: 'SUCCESS' | 'FAILED' = 'SUCCESS';
  let reason = '';
  let applied: number[] = [];
  try {
    if (event.RequestType !== 'Delete') applied = await migrate();
    logger.info('search migrations', { applied });
  } catch (error) {
    status = 'FAILED';
    reason = error instanceof Error ? error.message : String(error);
    logger.error('search migrations failed', { error: error as Error });
  }
  const body = JSON.stringify({
    Status: status,
    Reason: reason || `applied: ${applied.join(', ') || 'none'}`,
    PhysicalResourceId: event.PhysicalResourceId ?? 'search-migrations',
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    Data: { applied: applied.join(',') },
  });
  await fetch(event.ResponseURL, { method: 'PUT', body, headers: { 'content-type': '' } });
}
