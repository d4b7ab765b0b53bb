/**
 * The background worker (functions/worker/stream.ts) on the table's stream, the sweeper that
 * takes over what the stream did not finish (functions/worker/sweeper.ts), and what they
 * publish to.
 *
 * - The worker: one Lambda function behind an event source mapping that passes only the records
 *   it handles (functions/worker/filters.ts), retries a failing batch from its first failed
 *   record, splits a batch that keeps failing, gives a record up after `streamDelivery`'s retries
 *   or age, and sends what it gives up on to a queue an alarm watches. Reserved concurrency so
 *   a burst of API calls cannot starve it.
 * - The sweeper: a function an EventBridge schedule runs every few minutes; it reads the sparse
 *   sweep index (lib/table.ts) for tasks and pending changes that waited past a grace, and runs
 *   them with the worker's code. A record given up on therefore costs time, never work.
 * - Two more alarms: the worker's IteratorAge (the stream is falling behind) and sweeps that fail.
 *
 * The numbers (retries, record age, schedule, concurrency) are in functions/worker/delivery.ts,
 * which the local stream feeder and the local sweeper read too; why these: docs/operations.md.
 */
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, ProjectionType, type Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type CfnFunction, FilterCriteria, type IFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { sweepIndex } from '#core/items/task';
import { sweeperFunction, workerFunction } from '#functions/routes';
import { reservedConcurrency, streamDelivery, sweeping } from '#functions/worker/delivery';
import { streamFilters } from '#functions/worker/filters';
import { sweeperTimeoutSeconds, workerTimeoutSeconds } from '#lib/function-settings';
import { tableDefinition } from '#lib/table';
import { type Observability, RouteFunction } from './route-function';

/** The functions' timeouts: lib/function-settings.ts (the local runtime cuts invocations off after the same). */
const WORKER_TIMEOUT_SECONDS = workerTimeoutSeconds;
const SWEEPER_TIMEOUT_SECONDS = sweeperTimeoutSeconds;
/** The iterator-age alarm: the worker is this far behind the stream (ms), for two minutes running. */
export const ITERATOR_AGE_ALARM_MS = 5 * 60 * 1_000;

export class BackgroundWorker extends Construct {
  readonly eventBus: EventBus;
  readonly deadLetters: Queue;
  /** Records given up on (the failure queue is not empty). */
  readonly alarm: Alarm;
  /** The worker is behind the stream. */
  readonly iteratorAgeAlarm: Alarm;
  /** Sweeps keep failing. */
  readonly sweeperAlarm: Alarm;
  readonly worker: IFunction;
  readonly sweeper: IFunction;

  constructor(
    scope: Construct,
    id: string,
    props: {
      table: Table;
      /** The file bucket: the worker and the sweeper remove the bytes of what is purged (functions/core/files/objects.ts). */
      bucket: IBucket;
      logRetention: RetentionDays;
      removalPolicy: RemovalPolicy;
      observability: Observability;
      /**
       * Reserve `reservedConcurrency` (functions/worker/delivery.ts) for the worker and the sweeper
       * (the environment's `reserveConcurrency`). Lambda keeps 100 of an account's concurrency
       * unreserved, so a reservation needs an account limit of at least 100 + worker + sweeper;
       * without it the worker shares the account's pool with the routes.
       */
      reserveConcurrency: boolean;
    },
  ) {
    super(scope, id);
    const { table } = props;
    this.eventBus = new EventBus(this, 'Events', { description: 'Changes to repositories of the documents service (docs/api.md: Events)' });

    // The sweeper's index, defined with the table (lib/table.ts): only it reads it.
    for (const index of tableDefinition.globalSecondaryIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey.name, type: AttributeType.STRING },
        sortKey: { name: index.sortKey.name, type: AttributeType.STRING },
        projectionType: ProjectionType[index.projection],
      });
    }

    this.deadLetters = new Queue(this, 'FailedRecords', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter destination of the worker: what lands here is looked at by a person (the alarm, docs/operations.md), not consumed.',
    });

    const workerConstruct = new RouteFunction(this, 'Function', {
      route: workerFunction,
      table,
      bucket: props.bucket,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      timeoutSeconds: WORKER_TIMEOUT_SECONDS,
      observability: props.observability,
      environment: { EVENT_BUS_NAME: this.eventBus.eventBusName },
    });
    const worker = workerConstruct.function;
    this.worker = worker;
    if (props.reserveConcurrency) (worker.node.defaultChild as CfnFunction).reservedConcurrentExecutions = reservedConcurrency.worker;
    this.eventBus.grantPutEventsTo(worker);
    Validations.of(workerConstruct).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "The event source mapping grants dynamodb:ListStreams, an action IAM cannot scope to a resource; the stream's own read actions are granted on the table's stream only.",
    });

    worker.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: streamDelivery.batchSize,
        maxBatchingWindow: Duration.seconds(streamDelivery.maxBatchingWindowSeconds),
        // Records of one partition key stay in order across the parallel batches.
        parallelizationFactor: streamDelivery.parallelizationFactor,
        bisectBatchOnError: streamDelivery.bisectBatchOnError,
        reportBatchItemFailures: streamDelivery.reportBatchItemFailures,
        // Giving a record up costs time, not work: the sweeper finds what it left (docs/operations.md).
        retryAttempts: streamDelivery.retryAttempts,
        maxRecordAge: Duration.seconds(streamDelivery.maxRecordAgeSeconds),
        onFailure: new SqsDlq(this.deadLetters),
        filters: streamFilters.map((pattern) => FilterCriteria.filter(pattern as Record<string, unknown>)),
      }),
    );

    this.alarm = new Alarm(this, 'FailedRecordsAlarm', {
      alarmDescription: `The background worker gave up on stream records (queue ${this.deadLetters.queueName}); the sweeper takes their work over. docs/operations.md: "The failed-records alarm".`,
      metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    this.iteratorAgeAlarm = new Alarm(this, 'IteratorAgeAlarm', {
      alarmDescription:
        'The background worker is more than 5 minutes behind the table stream: work waits (the sweeper takes over what waits past its grace). docs/operations.md: "The iterator-age alarm".',
      metric: worker.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: Duration.minutes(1) }),
      threshold: ITERATOR_AGE_ALARM_MS,
      evaluationPeriods: 2,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const sweeperConstruct = new RouteFunction(this, 'Sweeper', {
      route: sweeperFunction,
      table,
      bucket: props.bucket,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      timeoutSeconds: SWEEPER_TIMEOUT_SECONDS,
      observability: props.observability,
      environment: {},
    });
    const sweeper = sweeperConstruct.function;
    this.sweeper = sweeper;
    if (props.reserveConcurrency) (sweeper.node.defaultChild as CfnFunction).reservedConcurrentExecutions = reservedConcurrency.sweeper;
    // The same actions (dynamodbActionsOf(sweeperFunction), granted on the table by RouteFunction); Query also on its index.
    sweeper.addToRolePolicy(
      new PolicyStatement({ actions: ['dynamodb:Query'], resources: [`${table.tableArn}/index/${sweepIndex.name}`] }),
    );
    // The next scheduled sweep is the retry; a scheduled invocation that waited out a whole
    // interval (throttled behind a long sweep: reserved concurrency 1) is dropped, not piled up.
    sweeper.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(sweeping.intervalMinutes) });
    new Rule(this, 'SweepSchedule', {
      description: 'Runs the sweeper: background work the stream did not finish (docs/operations.md)',
      schedule: Schedule.rate(Duration.minutes(sweeping.intervalMinutes)),
      targets: [new LambdaFunction(sweeper, { retryAttempts: 2 })],
    });
    this.sweeperAlarm = new Alarm(this, 'SweeperErrorsAlarm', {
      alarmDescription: 'Two sweeps in a row failed some work: look at the Sweeper logs. docs/operations.md: "The sweeper alarm".',
      metric: sweeper.metricErrors({ period: Duration.minutes(sweeping.intervalMinutes) }),
      threshold: 1,
      evaluationPeriods: 2,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
