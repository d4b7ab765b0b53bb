/**
 * The search index deployed (docs/api.md: Search; docs/operations.md: Search index): Aurora
 * PostgreSQL Serverless v2 with the RDS Data API, so that the functions reach it over HTTPS with
 * IAM and need no VPC. The cluster sits in isolated subnets of a VPC of its own: no NAT gateway,
 * no internet gateway, nothing can reach it but the Data API.
 *
 * - Capacity: from 0 ACU with auto-pause after `autoPauseMinutes` idle (a dev stack costs only
 *   storage while nobody searches; the first statement after a pause waits ~15 s, which
 *   functions/core/search/database.ts retries, then answers 503 with Retry-After), or a floor
 *   (`minCapacity`, documented for prod: 0.5 ACU keeps it warm).
 * - Migrations at deploy: a custom resource that functions/search/migrate.ts answers, after the
 *   cluster exists, and again whenever the list of migrations changes.
 * - The rebuild: functions/search/reindex.ts, invoked by hand (docs/operations.md).
 * - `grantSearch(fn)`: the Data API on the cluster and read of its secret, and where to find them.
 *
 * Wiring (lib/stack/documents-stack.ts): `grantSearch` on each route function whose route says
 * `search: true` and on the worker.
 */
import { ArnFormat, CustomResource, Duration, type RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AuroraPostgresEngineVersion, ClusterInstance, Credentials, DatabaseCluster, DatabaseClusterEngine } from 'aws-cdk-lib/aws-rds';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { migrations as schemaMigrations } from '#core/search/schema';
import { migrateFunction, reindexFunction } from '#functions/routes';

const migrationVersions = schemaMigrations.map((migration) => migration.version);

import { type Observability, RouteFunction } from './route-function';

export const SEARCH_DATABASE = 'search';

export interface SearchIndexProps {
  readonly table: ITable;
  readonly bucket: IBucket;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly observability: Observability;
  /** ACUs: 0 lets the cluster pause (dev); 0.5 or more keeps it warm (prod). */
  readonly minCapacity: number;
  readonly maxCapacity: number;
  /** Idle minutes before a cluster with `minCapacity` 0 pauses (5–1440). */
  readonly autoPauseMinutes?: number;
}

export class SearchIndex extends Construct {
  readonly cluster: DatabaseCluster;
  readonly reindex: IFunction;

  constructor(scope: Construct, id: string, props: SearchIndexProps) {
    super(scope, id);
    const vpc = new Vpc(this, 'Network', {
      maxAzs: 2,
      natGateways: 0,
      // Its default security group is left unused (the cluster has its own); restricting it would add a custom resource function.
      restrictDefaultSecurityGroup: false,
      subnetConfiguration: [{ name: 'database', subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
    });
    Validations.of(vpc).acknowledge({
      id: 'AwsSolutions-VPC7',
      reason: 'Nothing runs in this VPC but the database, reached only through the RDS Data API: there is no traffic to log.',
    });

    this.cluster = new DatabaseCluster(this, 'Cluster', {
      engine: DatabaseClusterEngine.auroraPostgres({ version: AuroraPostgresEngineVersion.VER_17_6 }),
      credentials: Credentials.fromGeneratedSecret('search_admin'),
      defaultDatabaseName: SEARCH_DATABASE,
      writer: ClusterInstance.serverlessV2('Writer'),
      serverlessV2MinCapacity: props.minCapacity,
      serverlessV2MaxCapacity: props.maxCapacity,
      ...(props.minCapacity === 0 ? { serverlessV2AutoPauseDuration: Duration.minutes(props.autoPauseMinutes ?? 30) } : {}),
      enableDataApi: true,
      vpc,
      vpcSubnets: { subnetType: SubnetType.PRIVATE_ISOLATED },
      storageEncrypted: true,
      iamAuthentication: true,
      deletionProtection: false,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.cluster).acknowledge(
      {
        id: 'AwsSolutions-SMG4',
        reason: 'The Data API reads the secret on each call; rotation is an operational choice (docs/operations.md).',
      },
      {
        id: 'AwsSolutions-RDS10',
        reason: 'The index can be rebuilt from the table at any time (the reindex function); deletion protection is on the table.',
      },
      { id: 'AwsSolutions-RDS11', reason: 'No network path reaches the cluster but the Data API: the port is not exposed.' },
      { id: 'AwsSolutions-RDS14', reason: 'Backtrack is not available for Aurora PostgreSQL.' },
    );

    const shared = {
      table: props.table,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      observability: props.observability,
    };
    const migrate = new RouteFunction(this, migrateFunction.name, { ...shared, route: migrateFunction, environment: {} }).function;
    this.grantSearch(migrate);
    // Run by CloudFormation itself at every deploy whose migrations changed (the function answers the custom resource).
    const migrations = new CustomResource(this, 'Migrations', {
      serviceToken: migrate.functionArn,
      resourceType: 'Custom::SearchMigrations',
      properties: { versions: migrationVersions.join(',') },
    });
    migrations.node.addDependency(this.cluster);

    const reindexConstruct = new RouteFunction(this, reindexFunction.name, {
      ...shared,
      route: reindexFunction,
      bucket: props.bucket,
      timeoutSeconds: 900,
      environment: {},
    });
    const reindex = reindexConstruct.function;
    this.grantSearch(reindex);
    // It goes on in a new invocation of itself when its time runs out. Named by pattern: its own ARN
    // in its own policy would make the function depend on itself.
    reindex.addToRolePolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: [
          Stack.of(this).formatArn({
            service: 'lambda',
            resource: 'function',
            resourceName: `*${reindexFunction.name}*`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ],
      }),
    );
    // cdk-nag names the resource as the template has it: pseudo parameters, or the environment's own values.
    const stack = Stack.of(this);
    const named = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<AWS::${pseudo}>` : value);
    Validations.of(reindexConstruct).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:${named(stack.partition, 'Partition')}:lambda:${named(stack.region, 'Region')}:${named(stack.account, 'AccountId')}:function:*${reindexFunction.name}*]`,
      reason:
        'The rebuild invokes itself to go on; its generated name is matched by pattern, as its own ARN would make a dependency cycle.',
    });
    this.reindex = reindex;
  }

  /** The Data API on the cluster, read of its secret, and the variables that name them (functions/core/search/data-api.ts). */
  grantSearch(fn: IFunction & { addEnvironment?(key: string, value: string): unknown }): void {
    this.cluster.grantDataApiAccess(fn);
    fn.addEnvironment?.('SEARCH_CLUSTER_ARN', this.cluster.clusterArn);
    fn.addEnvironment?.('SEARCH_SECRET_ARN', this.cluster.secret!.secretArn);
    fn.addEnvironment?.('SEARCH_DATABASE', SEARCH_DATABASE);
  }
}
