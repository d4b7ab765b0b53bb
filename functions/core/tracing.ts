/**
 * X-Ray traces through Powertools Tracer, on only where the stack turns tracing on (it sets
 * POWERTOOLS_TRACE_ENABLED=true and Lambda's active tracing). Off, the tracer is not even
 * imported: the stack bundles a stub in its place (lib/bundling.ts, `tracerStub`), so a
 * function without tracing loads and runs exactly as before (bench: module load and warm CPU).
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from './metrics';

export const tracingEnabled = process.env.POWERTOOLS_TRACE_ENABLED === 'true';

export const tracer: Tracer | undefined = tracingEnabled
  ? new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: SERVICE_NAME, captureHTTPsRequests: false })
  : undefined;

/** An AWS SDK client whose calls become subsegments of the trace (unchanged when tracing is off). */
export function traceClient<T>(client: T): T {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}

/**
 * Runs one invocation in a `## <handler>` subsegment of Lambda's segment, annotated (indexed,
 * searchable) with the cold start, the service and `annotations` (the correlation id, the
 * route, the caller); an error is recorded on it. Without tracing it just runs `work`.
 */
export async function traced<T>(annotations: Record<string, string | undefined>, work: () => Promise<T>): Promise<T> {
  const segment = tracer?.getSegment();
  if (!tracer || !segment) return work();
  const subsegment = segment.addNewSubsegment(`## ${process.env._HANDLER ?? 'handler'}`);
  tracer.setSegment(subsegment);
  try {
    tracer.annotateColdStart();
    tracer.addServiceNameAnnotation();
    for (const [key, value] of Object.entries(annotations)) if (value !== undefined) tracer.putAnnotation(key, value);
    return await work();
  } catch (error) {
    tracer.addErrorAsMetadata(error as Error);
    throw error;
  } finally {
    subsegment.close();
    tracer.setSegment(segment);
  }
}
