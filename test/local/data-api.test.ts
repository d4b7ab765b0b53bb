/**
 * The local RDS Data API (lib/local/data-api.ts) with the deployed adapter in front of it
 * (functions/core/search/data-api.ts, the SDK's client found through AWS_ENDPOINT_URL_RDS_DATA):
 * statements and their named parameters go through as deployed; what the Data API refuses is
 * refused, with the error names its client reads.
 */
import { ExecuteStatementCommand, RDSDataClient } from '@aws-sdk/client-rds-data';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataApiFromEnvironment } from '#core/search/data-api';
import type { SqlPort } from '#core/search/database';
import { type LocalDataApi, startLocalDataApi } from '#lib/local/data-api';
import { type LocalSearchDatabase, startLocalSearchDatabase } from '#lib/local/search-database';

const CLUSTER = 'arn:aws:rds:us-east-1:123456789012:cluster:test-search';
const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:test-search-AbCdEf';
const KEY = { accessKeyId: 'dataapikey', secretAccessKey: 'data-api-secret' };

let database: LocalSearchDatabase;
let api: LocalDataApi;
let adapter: SqlPort;
const saved = { ...process.env };

beforeAll(async () => {
  database = await startLocalSearchDatabase();
  api = await startLocalDataApi({ database, keys: [KEY], clusterArn: CLUSTER, secretArn: SECRET, databaseName: 'search' });
  Object.assign(process.env, {
    SEARCH_CLUSTER_ARN: CLUSTER,
    SEARCH_SECRET_ARN: SECRET,
    SEARCH_DATABASE: 'search',
    AWS_ENDPOINT_URL_RDS_DATA: api.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: KEY.accessKeyId,
    AWS_SECRET_ACCESS_KEY: KEY.secretAccessKey,
  });
  adapter = dataApiFromEnvironment();
}, 60_000);
afterAll(async () => {
  process.env = saved;
  await api?.close();
  await database?.close();
});

const client = (key = KEY) => new RDSDataClient({ endpoint: api.endpoint, region: 'us-east-1', credentials: key, maxAttempts: 1 });
const statement = (sql: string, fields: Partial<ConstructorParameters<typeof ExecuteStatementCommand>[0]> = {}) =>
  new ExecuteStatementCommand({ resourceArn: CLUSTER, secretArn: SECRET, database: 'search', sql, formatRecordsAs: 'JSON', ...fields });

describe('the local Data API', () => {
  it('runs a statement with named parameters of every scalar kind; quoted text, casts and dollar-quoted bodies stay as written', async () => {
    const rows = await adapter.execute(
      `SELECT $1::text AS s, $2::bigint AS n, $3::float8 AS f, $4::boolean AS b, $5::text AS z,
        ':p1' AS quoted, 'x'::text AS cast, $q$ :p2 $q$ AS dollar, regexp_replace('a-b', '[^[:alnum:]]', ' ') AS posix`,
      ['text', 9_007_199_254_740_991, 1.5, true, null],
    );
    expect(rows).toEqual([
      { s: 'text', n: 9_007_199_254_740_991, f: 1.5, b: true, z: null, quoted: ':p1', cast: 'x', dollar: ' :p2 ', posix: 'a b' },
    ]);
  });

  it('refuses what the Data API refuses: an array parameter, an unnamed parameter, another cluster, secret or database', async () => {
    const refused = (command: ExecuteStatementCommand) =>
      client()
        .send(command)
        .then(
          () => 'sent',
          (error: { name: string }) => error.name,
        );
    expect(await refused(statement('SELECT :a', { parameters: [{ name: 'a', value: { arrayValue: { longValues: [1] } } }] }))).toBe(
      'BadRequestException',
    );
    expect(await refused(statement('SELECT :missing'))).toBe('BadRequestException');
    expect(await refused(statement('SELECT 1', { resourceArn: `${CLUSTER}-other` }))).toBe('BadRequestException');
    expect(await refused(statement('SELECT 1', { secretArn: `${SECRET}-other` }))).toBe('BadRequestException');
    expect(await refused(statement('SELECT 1', { database: 'postgres' }))).toBe('BadRequestException');
    expect(await refused(statement('SELECT repeat($$x$$, 1100000) AS big'))).toBe('BadRequestException');
    expect(await refused(statement('SELECT 1 AS one'))).toBe('sent');
  });

  it('refuses a request over 4 MiB before reading it as one', async () => {
    const big = await fetch(`${api.endpoint}/Execute`, { method: 'POST', body: 'x'.repeat(5 * 1024 * 1024) });
    expect([big.status, big.headers.get('x-amzn-errortype')]).toEqual([400, 'BadRequestException']);
  });

  it('refuses a request signed with a key it does not know, or with the wrong secret', async () => {
    const name = (key: typeof KEY) =>
      client(key)
        .send(statement('SELECT 1'))
        .then(
          () => 'sent',
          (error: { name: string; $metadata?: { httpStatusCode?: number } }) => `${error.name} ${error.$metadata?.httpStatusCode}`,
        );
    expect(await name({ accessKeyId: 'stranger', secretAccessKey: KEY.secretAccessKey })).toBe('InvalidSignatureException 403');
    expect(await name({ ...KEY, secretAccessKey: 'wrong' })).toBe('InvalidSignatureException 403');
    const unsigned = await fetch(`${api.endpoint}/Execute`, { method: 'POST', body: '{}' });
    expect([unsigned.status, unsigned.headers.get('x-amzn-errortype')]).toEqual([403, 'MissingAuthenticationTokenException']);
  });

  it('answers DatabaseResumingException while the cluster wakes, as the adapter expects', async () => {
    database.resumeFor(60_000);
    try {
      const error = await client()
        .send(statement('SELECT 1'))
        .catch((e: Error) => e);
      expect((error as Error).name).toBe('DatabaseResumingException');
    } finally {
      database.resumeFor(0);
    }
  });
});
