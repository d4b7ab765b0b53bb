/**
 * The search database deployed: Aurora PostgreSQL through the RDS Data API (no VPC for the
 * functions; the cluster sits in isolated subnets). Configured by SEARCH_CLUSTER_ARN,
 * SEARCH_SECRET_ARN and SEARCH_DATABASE (lib/stack/search-index.ts). The Data API names its
 * parameters (`:p1`), takes no arrays, and answers at most 1 MiB a call (rows of at most 64 KB):
 * "Amazon RDS Data API limitations", Aurora user guide.
 */
import { ExecuteStatementCommand, type Field, RDSDataClient, type SqlParameter } from '@aws-sdk/client-rds-data';
import { traceClient } from '../tracing';
import type { Row, SqlPort, SqlValue } from './database';

/** `$1` → `:p1` (the SQL of this module never holds a `$` followed by a digit otherwise). */
export const namedPlaceholders = (sql: string) => sql.replace(/\$(\d+)/g, ':p$1');

export function dataApiParameter(value: SqlValue, index: number): SqlParameter {
  const name = `p${index + 1}`;
  if (value === null) return { name, value: { isNull: true } satisfies Field };
  if (typeof value === 'string') return { name, value: { stringValue: value } };
  if (typeof value === 'boolean') return { name, value: { booleanValue: value } };
  if (typeof value === 'number') return { name, value: Number.isInteger(value) ? { longValue: value } : { doubleValue: value } };
  throw new TypeError(`The Data API takes no ${Array.isArray(value) ? 'array' : typeof value} parameter (pass a list as JSON text)`);
}

export function dataApiFromEnvironment(): SqlPort {
  const resourceArn = process.env.SEARCH_CLUSTER_ARN;
  const secretArn = process.env.SEARCH_SECRET_ARN;
  const database = process.env.SEARCH_DATABASE ?? 'search';
  if (!resourceArn || !secretArn) throw new Error('SEARCH_CLUSTER_ARN and SEARCH_SECRET_ARN must be set');
  const client = traceClient(new RDSDataClient({}));
  return {
    async execute(sql, params) {
      const result = await client.send(
        new ExecuteStatementCommand({
          resourceArn,
          secretArn,
          database,
          sql: namedPlaceholders(sql),
          parameters: params.map(dataApiParameter),
          formatRecordsAs: 'JSON',
        }),
      );
      return result.formattedRecords ? (JSON.parse(result.formattedRecords) as Row[]) : [];
    },
  };
}
