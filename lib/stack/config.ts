/**
 * Deployment settings, read from CDK context (`-c key=value` or cdk.json) in one place.
 * Everything has a safe default: no CORS origins, data retained, Cognito made by the stack.
 */
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';

export interface DeploymentConfig {
  /** An external OIDC issuer (`jwtIssuer`) and its audiences (`jwtAudience`, comma-separated). */
  readonly jwt?: { readonly issuer: string; readonly audience: readonly string[] };
  /** Browser origins allowed by CORS (`corsOrigins`, comma-separated); none by default. */
  readonly corsOrigins: readonly string[];
  /** `destroyable=true`: a throwaway stack whose table is deleted with it. */
  readonly destroyable: boolean;
  /** Stage-wide throttling: steady requests per second and burst (`throttleRate`, `throttleBurst`). */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  /** Days to keep function and access logs (`logRetentionDays`). */
  readonly logRetentionDays: number;
}

const list = (value: unknown): string[] =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : [];

function positiveInteger(node: Node, key: string, fallback: number): number {
  const raw = node.tryGetContext(key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`Context ${key} must be a positive integer, got ${raw}`);
  return value;
}

export function readConfig(node: Node): DeploymentConfig {
  const issuer = node.tryGetContext('jwtIssuer') as string | undefined;
  const audience = list(node.tryGetContext('jwtAudience'));
  if (Boolean(issuer) !== audience.length > 0) {
    throw new Error('Give both jwtIssuer and jwtAudience, or neither (the stack then makes a Cognito user pool).');
  }
  if (issuer && !issuer.startsWith('https://')) throw new Error(`jwtIssuer must be an https URL, got ${issuer}`);
  return {
    ...(issuer ? { jwt: { issuer, audience } } : {}),
    corsOrigins: list(node.tryGetContext('corsOrigins')),
    destroyable: String(node.tryGetContext('destroyable')) === 'true',
    throttle: {
      rateLimit: positiveInteger(node, 'throttleRate', 100),
      burstLimit: positiveInteger(node, 'throttleBurst', 200),
    },
    logRetentionDays: positiveInteger(node, 'logRetentionDays', 30),
  };
}

/** CloudWatch Logs accepts only these retention periods (days). */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

export function retentionDays(days: number): RetentionDays {
  if (!RETENTION_DAYS.includes(days)) throw new Error(`logRetentionDays must be one of ${RETENTION_DAYS.join(', ')}, got ${days}`);
  return days as RetentionDays;
}
