/**
 * One Lambda function for one route of the route table: bundled with the shared settings
 * (lib/bundling.ts), its own log group with retention, and a role that may write only to that
 * log group and call only the DynamoDB actions the route declares, and the S3 actions it declares
 * on the file bucket's objects under the file prefix.
 */

import { Duration, Names, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { CfnBucket, IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { type DynamoDbAction, dynamodbActionsOf, type HttpMethod, type S3Action, s3ActionsOf } from '#functions/routes';
import { bucketDefinition } from '#lib/bucket';
import { memorySizeOf, timeoutSeconds } from '#lib/function-settings';
import type { LogLevel } from './config';
import { functionCode } from './function-code';
import { samLocalRequested } from './sam-local';

export interface RouteFunctionProps {
  /** The route table entry (or the `$default` fallback, or the background worker). */
  readonly route: {
    readonly name: string;
    readonly handler: string;
    /** A route's method: write routes also get the Idempotency-Key record's actions. */
    readonly method?: HttpMethod;
    readonly dynamodb: readonly DynamoDbAction[];
    readonly s3?: readonly S3Action[];
    readonly files?: readonly string[];
  };
  readonly table: ITable;
  /** The file bucket: needed when the route declares S3 actions. */
  readonly bucket?: IBucket;
  /** Variables every function gets (besides TABLE_NAME for those that touch the table). */
  readonly environment: Record<string, string>;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** Overrides lib/function-settings.ts (the background worker's longer runs). */
  readonly timeoutSeconds?: number;
  /** The namespace of the service's metrics, and X-Ray tracing on or off (functions/core/metrics.ts, tracing.ts). */
  readonly observability: Observability;
}

export interface Observability {
  readonly metricsNamespace: string;
  readonly tracing: boolean;
  /** The environment's `logLevel`: the handlers' (LOG_LEVEL) and Lambda's own lines (see below). */
  readonly logLevel: LogLevel;
}

/**
 * Lambda's JSON log format with its log levels (Lambda developer guide, "Configuring advanced
 * logging controls"): the application's lines below `logLevel` are dropped by Lambda too, and the
 * platform's START, END and REPORT lines (INFO, ~350 bytes an invocation, bench/cost-model.ts)
 * are written only at INFO or DEBUG; at WARN or ERROR only the platform's warnings and errors
 * (a timeout, an init failure) are. Duration and memory stay in Lambda's metrics.
 */
const systemLogLevel: Record<LogLevel, SystemLogLevel> = {
  DEBUG: SystemLogLevel.DEBUG,
  INFO: SystemLogLevel.INFO,
  WARN: SystemLogLevel.WARN,
  ERROR: SystemLogLevel.WARN,
};

export class RouteFunction extends Construct {
  readonly function: LambdaFunction;

  constructor(scope: Construct, id: string, props: RouteFunctionProps) {
    super(scope, id);
    const { route, table } = props;

    const logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    // Our own role instead of the AWSLambdaBasicExecutionRole managed policy, which may
    // write to every log group in the account.
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);

    const actions = dynamodbActionsOf(route);
    const usesTable = actions.length > 0;
    if (usesTable) {
      // Exactly the actions the route's code uses, on the table only: there are no indexes.
      role.addToPolicy(new PolicyStatement({ actions, resources: [table.tableArn] }));
    }

    const s3Actions = s3ActionsOf(route);
    const bucket = props.bucket;
    if (s3Actions.length > 0) {
      if (!bucket) throw new Error(`${route.name} declares S3 actions but the stack gave its function no bucket.`);
      const prefix = bucketDefinition.keyPrefix;
      const bucketActions: readonly S3Action[] = ['s3:ListBucket', 's3:ListBucketMultipartUploads'];
      const objectActions = s3Actions.filter((action) => !bucketActions.includes(action));
      if (objectActions.length > 0) {
        role.addToPolicy(new PolicyStatement({ actions: objectActions, resources: [bucket.arnForObjects(`${prefix}*`)] }));
      }
      if (s3Actions.includes('s3:ListBucket')) {
        role.addToPolicy(
          new PolicyStatement({
            actions: ['s3:ListBucket'],
            resources: [bucket.bucketArn],
            conditions: { StringLike: { 's3:prefix': [`${prefix}*`] } },
          }),
        );
      }
      // Listing the uploads in progress: IAM has no prefix condition for it, so it is on the bucket.
      if (s3Actions.includes('s3:ListBucketMultipartUploads')) {
        role.addToPolicy(new PolicyStatement({ actions: ['s3:ListBucketMultipartUploads'], resources: [bucket.bucketArn] }));
      }
      // cdk-nag names each wildcard resource in the finding's id: the bucket by its logical id, or in
      // a nested stack (./route-groups.ts) by the parameter CDK passes its ARN in.
      const cfnBucket = bucket.node.defaultChild as CfnBucket;
      const bucketArn =
        Stack.of(cfnBucket) === Stack.of(this)
          ? `${Stack.of(this).getLogicalId(cfnBucket)}.Arn`
          : `referenceto${Names.uniqueId(cfnBucket)}Arn`;
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketArn}>/${prefix}*]`,
        reason: `Object keys are made at run time (one per document version), so the grant is on the file prefix (${prefix}*), the narrowest resource that holds them, and only for the S3 actions the route declares.`,
      });
    }

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'The runtime is fixed at nodejs22.x by the project design (bundles target node20 and are tested on it); moving to a newer runtime is a deliberate, tested change, not a default.',
    });

    if (props.observability.tracing) {
      Validations.of(this).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'Active tracing grants xray:PutTraceSegments and xray:PutTelemetryRecords, which IAM cannot scope to a resource.',
      });
    }

    this.function = new LambdaFunction(this, 'Function', {
      // The bundle (and the files the handler reads at run time, beside it) from one build of every function.
      code: functionCode(route.name, {
        tracing: props.observability.tracing,
        samLocal: samLocalRequested(this.node.tryGetContext('samLocal')),
      }),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: memorySizeOf(route.name),
      timeout: Duration.seconds(props.timeoutSeconds ?? timeoutSeconds),
      role,
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[props.observability.logLevel],
      systemLogLevelV2: systemLogLevel[props.observability.logLevel],
      environment: {
        LOG_LEVEL: props.observability.logLevel,
        ...props.environment,
        ...(usesTable ? { TABLE_NAME: table.tableName } : {}),
        ...(s3Actions.length > 0 && bucket ? { BUCKET_NAME: bucket.bucketName } : {}),
        POWERTOOLS_METRICS_NAMESPACE: props.observability.metricsNamespace,
        ...(props.observability.tracing ? { POWERTOOLS_TRACE_ENABLED: 'true' } : {}),
      },
      ...(props.observability.tracing ? { tracing: Tracing.ACTIVE } : {}),
    });
  }
}
