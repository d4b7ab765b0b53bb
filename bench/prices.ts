/**
 * AWS list prices the cost table uses: us-east-1, on-demand, no free tier, no savings plans.
 * Checked on the date below against the pricing pages; re-check them when this date is old.
 */
export const prices = {
  checked: '2026-11-22',
  region: 'us-east-1',
  /** HTTP API, first 300 million requests a month (a request is metered per 512 KB). */
  httpApiPerMillion: 1.0,
  /** Lambda: per million requests, and per GB-second on arm64 (Graviton), first 7.5 billion GB-s. */
  lambdaRequestsPerMillion: 0.2,
  lambdaArmPerGbSecond: 0.0000133334,
  /** DynamoDB on-demand, since the 50% reduction of 1 November 2024. */
  dynamodbReadPerMillionUnits: 0.125,
  dynamodbWritePerMillionUnits: 0.625,
  sources: [
    'https://aws.amazon.com/api-gateway/pricing/',
    'https://aws.amazon.com/lambda/pricing/',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  ],
} as const;

/** Lambda's CPU share grows with memory: one full vCPU at 1,769 MB (AWS Lambda docs). */
export const MB_PER_VCPU = 1769;
