/**
 * What a function bundled without tracing gets for `@aws-lambda-powertools/tracer`
 * (lib/bundling.ts): ../core/tracing.ts imports the tracer only when POWERTOOLS_TRACE_ENABLED
 * is true, which the stack sets only on functions it bundles with the real one.
 */
export class Tracer {
  constructor() {
    throw new Error('This function was bundled without the tracer: deploy with tracing on to trace it.');
  }
}
