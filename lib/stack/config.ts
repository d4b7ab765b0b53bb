/**
 * Deployment settings: one committed entry per environment in cdk.json (`context.environments`),
 * chosen with `-c env=<name>`. Synth refuses to run without a choice, with an unknown one, with
 * an entry that misses a setting or has one it does not know, and with the old per-setting
 * `-c` flags: so a deploy can never switch identity, CORS or throttling by leaving a flag out.
 */
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';

export interface DeploymentConfig {
  /** The environment's name (its key in `environments`). */
  readonly environment: string;
  /** The CloudFormation stack name (`stackName`). */
  readonly stackName: string;
  /** Where the stack must go (`account`, `region`); unset: wherever the deploying credentials point. */
  readonly account?: string;
  readonly region?: string;
  /** An external OIDC issuer (`jwtIssuer`) and its audiences (`jwtAudience`); unset: a Cognito user pool made by the stack. */
  readonly jwt?: { readonly issuer: string; readonly audience: readonly string[] };
  /** Browser origins allowed by CORS (`corsOrigins`); `[]` for none. */
  readonly corsOrigins: readonly string[];
  /** `destroyable: true`: a throwaway stack whose table and logs are deleted with it. */
  readonly destroyable: boolean;
  /** Throttling of each route (HTTP API default route settings): steady requests per second and burst (`throttleRate`, `throttleBurst`). */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  /** Days to keep function and access logs (`logRetentionDays`). */
  readonly logRetentionDays: number;
  /** The CloudWatch namespace of the service's own metrics (`metricsNamespace`); unset: the stack name. */
  readonly metricsNamespace: string;
  /** X-Ray tracing of every function (`tracing`); unset: off. */
  readonly tracing: boolean;
  /**
   * Who the alarms notify (`alarmEndpoint`): an email address or an https URL (a paging tool's
   * webhook) subscribed to the alarm topic; unset: nobody yet.
   */
  readonly alarmEndpoint?: { readonly protocol: 'email' | 'https'; readonly endpoint: string };
  /**
   * `reserveConcurrency: true`: the worker and the sweeper get their reserved concurrency
   * (functions/worker/delivery.ts). Lambda keeps 100 of the account's concurrency unreserved, so
   * this needs an account limit of at least 100 + their sum; new accounts often have less. Unset: off.
   */
  readonly reserveConcurrency: boolean;
  /** `dashboard: true`: the CloudWatch operations dashboard ($3 a month past the account's first 3); unset: none. */
  readonly dashboard: boolean;
  /** The functions' log level (`logLevel`: DEBUG, INFO, WARN, ERROR); unset: INFO. */
  readonly logLevel: LogLevel;
  /** Each repository's storage quota in bytes (`quotaBytes`); unset: 10 GiB (functions/core/limits.ts). */
  readonly quotaBytes?: number;
  /**
   * The prefix of the web app's Cognito domain (`signInDomainPrefix`: `<prefix>.auth.<region>.amazoncognito.com`,
   * unique in the region); unset: `<stack name in lower case>-<account>`. Only with the stack's own user pool.
   */
  readonly signInDomainPrefix?: string;
}

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The settings an environment entry must give. */
const REQUIRED = ['stackName', 'corsOrigins', 'throttleRate', 'throttleBurst', 'logRetentionDays', 'destroyable'] as const;
/** The settings it may give. */
const OPTIONAL = [
  'jwtIssuer',
  'jwtAudience',
  'account',
  'region',
  'metricsNamespace',
  'tracing',
  'alarmEndpoint',
  'quotaBytes',
  'reserveConcurrency',
  'dashboard',
  'logLevel',
  'signInDomainPrefix',
] as const;
/** Settings that used to be separate `-c` flags: now only in an environment entry. */
const MOVED = ['jwtIssuer', 'jwtAudience', 'corsOrigins', 'throttleRate', 'throttleBurst', 'logRetentionDays', 'destroyable', 'stackName'];

const WHERE = 'cdk.json, context.environments';

/** CloudWatch Logs accepts only these retention periods (days). */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The chosen environment's settings. `context` reads CDK context (`(key) => app.node.tryGetContext(key)`).
 * Throws, naming the environments there are, when none is chosen or the choice is not one of them.
 */
export function readConfig(context: (key: string) => unknown): DeploymentConfig {
  const environments = context('environments');
  if (!isRecord(environments) || Object.keys(environments).length === 0) {
    throw new Error(`No environments are configured (${WHERE}): add one entry per environment.`);
  }
  const names = Object.keys(environments).join(', ');
  for (const key of MOVED) {
    if (context(key) !== undefined) {
      throw new Error(`-c ${key} is no longer read: set "${key}" in the environment's entry (${WHERE}) and choose it with -c env=<name>.`);
    }
  }
  const name = context('env');
  if (name === undefined || name === '') {
    throw new Error(`Choose the environment to synthesize or deploy: -c env=<name>, one of: ${names} (${WHERE}).`);
  }
  if (typeof name !== 'string' || !Object.hasOwn(environments, name)) {
    throw new Error(`Unknown environment ${JSON.stringify(name)}: -c env must be one of: ${names} (${WHERE}).`);
  }
  return parseEnvironment(name, environments[name]);
}

function parseEnvironment(name: string, entry: unknown): DeploymentConfig {
  const at = `environments.${name}`;
  if (!isRecord(entry)) throw new Error(`${at} must be an object of settings (${WHERE}).`);
  const unknown = Object.keys(entry).filter(
    (key) => !(REQUIRED as readonly string[]).includes(key) && !(OPTIONAL as readonly string[]).includes(key),
  );
  if (unknown.length > 0) {
    throw new Error(`${at} has unknown settings: ${unknown.join(', ')} (known: ${[...REQUIRED, ...OPTIONAL].join(', ')}).`);
  }
  const missing = REQUIRED.filter((key) => entry[key] === undefined);
  if (missing.length > 0) throw new Error(`${at} must set ${missing.join(', ')}: nothing about a deployment is left to a default.`);

  const fail = (key: string, what: string): never => {
    throw new Error(`${at}.${key} must be ${what}, got ${JSON.stringify(entry[key])}.`);
  };
  const positiveInteger = (key: string): number => {
    const value = entry[key];
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fail(key, 'a positive integer');
  };
  const strings = (key: string, pattern: RegExp, what: string): string[] => {
    const value = entry[key];
    return Array.isArray(value) && value.every((v) => typeof v === 'string' && pattern.test(v)) ? (value as string[]) : fail(key, what);
  };

  const stackName = entry.stackName;
  if (typeof stackName !== 'string' || !/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(stackName)) {
    fail('stackName', 'a CloudFormation stack name (a letter, then letters, digits and hyphens)');
  }
  if (typeof entry.destroyable !== 'boolean') fail('destroyable', 'true or false');
  const logRetentionDays = positiveInteger('logRetentionDays');
  if (!RETENTION_DAYS.includes(logRetentionDays)) fail('logRetentionDays', `one of ${RETENTION_DAYS.join(', ')}`);
  // A browser's Origin header has no path and no trailing slash: `https://app.example.com`.
  const corsOrigins = strings(
    'corsOrigins',
    /^https?:\/\/[^/\s]+$/,
    'a list of origins like "https://app.example.com" (no path, no trailing slash), [] for none',
  );

  const issuer = entry.jwtIssuer;
  const hasAudience = entry.jwtAudience !== undefined;
  if ((issuer === undefined) !== !hasAudience) {
    throw new Error(`${at}: give both jwtIssuer and jwtAudience, or neither (the stack then makes a Cognito user pool).`);
  }
  if (issuer !== undefined && (typeof issuer !== 'string' || !/^https:\/\/\S+$/.test(issuer))) fail('jwtIssuer', 'an https URL');
  const audience = hasAudience ? strings('jwtAudience', /^\S+$/, 'a non-empty list of audiences') : [];
  if (hasAudience && audience.length === 0) fail('jwtAudience', 'a non-empty list of audiences');

  if (entry.account !== undefined && (typeof entry.account !== 'string' || !/^\d{12}$/.test(entry.account)))
    fail('account', 'a 12-digit AWS account id');
  if (entry.region !== undefined && (typeof entry.region !== 'string' || !/^[a-z]{2}(-[a-z]+)+-\d$/.test(entry.region))) {
    fail('region', 'an AWS region like "eu-west-1"');
  }

  // CloudWatch namespaces: letters, digits and . - _ / # : (no leading colon), at most 255.
  const metricsNamespace = entry.metricsNamespace ?? stackName;
  if (
    typeof metricsNamespace !== 'string' ||
    !/^[A-Za-z0-9.\-_/#][A-Za-z0-9.\-_/#:]{0,254}$/.test(metricsNamespace) ||
    metricsNamespace.startsWith('AWS/')
  ) {
    fail('metricsNamespace', 'a CloudWatch namespace of your own (letters, digits, . - _ / # :, not AWS/…)');
  }
  if (entry.tracing !== undefined && typeof entry.tracing !== 'boolean') fail('tracing', 'true or false');
  const alarmEndpoint = entry.alarmEndpoint;
  let alarmSubscriber: DeploymentConfig['alarmEndpoint'];
  if (alarmEndpoint !== undefined) {
    if (typeof alarmEndpoint === 'string' && /^[^@\s/]+@[^@\s/]+\.[^@\s/]+$/.test(alarmEndpoint)) {
      alarmSubscriber = { protocol: 'email', endpoint: alarmEndpoint };
    } else if (typeof alarmEndpoint === 'string' && /^https:\/\/[^\s/]+(\/\S*)?$/.test(alarmEndpoint)) {
      alarmSubscriber = { protocol: 'https', endpoint: alarmEndpoint };
    } else {
      fail('alarmEndpoint', 'an email address or an https URL');
    }
  }
  for (const key of ['reserveConcurrency', 'dashboard'] as const) {
    if (entry[key] !== undefined && typeof entry[key] !== 'boolean') fail(key, 'true or false');
  }
  // Cognito: lower-case letters, digits and hyphens, 1 to 63, not starting or ending with a hyphen, and no "aws", "amazon" or "cognito".
  const prefix = entry.signInDomainPrefix;
  if (
    prefix !== undefined &&
    (typeof prefix !== 'string' || !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(prefix) || /aws|amazon|cognito/.test(prefix))
  ) {
    fail('signInDomainPrefix', 'lower-case letters, digits and hyphens (at most 63), without "aws", "amazon" or "cognito"');
  }
  if (prefix !== undefined && issuer !== undefined)
    throw new Error(`${at}: signInDomainPrefix is for the stack's own user pool, not with jwtIssuer.`);
  const logLevel = entry.logLevel ?? 'INFO';
  if (!(LOG_LEVELS as readonly unknown[]).includes(logLevel)) fail('logLevel', `one of ${LOG_LEVELS.join(', ')}`);

  return {
    environment: name,
    stackName: stackName as string,
    ...(entry.account !== undefined ? { account: entry.account as string } : {}),
    ...(entry.region !== undefined ? { region: entry.region as string } : {}),
    ...(issuer !== undefined ? { jwt: { issuer: issuer as string, audience } } : {}),
    corsOrigins,
    destroyable: entry.destroyable as boolean,
    throttle: { rateLimit: positiveInteger('throttleRate'), burstLimit: positiveInteger('throttleBurst') },
    logRetentionDays,
    metricsNamespace: metricsNamespace as string,
    tracing: entry.tracing === true,
    ...(alarmSubscriber ? { alarmEndpoint: alarmSubscriber } : {}),
    reserveConcurrency: entry.reserveConcurrency === true,
    dashboard: entry.dashboard === true,
    logLevel: logLevel as LogLevel,
    ...(entry.quotaBytes !== undefined ? { quotaBytes: positiveInteger('quotaBytes') } : {}),
    ...(prefix !== undefined ? { signInDomainPrefix: prefix as string } : {}),
  };
}

export function retentionDays(days: number): RetentionDays {
  if (!RETENTION_DAYS.includes(days)) throw new Error(`logRetentionDays must be one of ${RETENTION_DAYS.join(', ')}, got ${days}`);
  return days as RetentionDays;
}
