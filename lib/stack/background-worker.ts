/**
 * The background worker (functions/worker/stream.ts) on the table's stream, and what it
 * publishes to: one Lambda function behind an event source mapping that passes only the
 * records the worker handles (functions/worker/filters.ts), retries a failing batch from its
 * first failed record, splits a batch that keeps failing, and sends what it gives up on to a
 * queue an alarm watches. Changes are published on the stack's EventBridge bus.
 */
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { workerFunction } from '#functions/routes';
import { streamFilters } from '#functions/worker/filters';
import { RouteFunction } from './route-function';

/** A task step works for at most 10 s of a record; a batch runs its partition keys side by side. */
const WORKER_TIMEOUT_SECONDS = 120;

export class BackgroundWorker extends Construct {
  readonly eventBus: EventBus;
  readonly deadLetters: Queue;
  readonly alarm: Alarm;

  constructor(scope: Construct, id: string, props: { table: ITable; logRetention: RetentionDays; removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.eventBus = new EventBus(this, 'Events', { description: 'Changes to repositories of the documents service (docs/api.md: Events)' });

    this.deadLetters = new Queue(this, 'FailedRecords', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter destination of the worker: what lands here is looked at by a person (the alarm), not consumed.',
    });

    const workerConstruct = new RouteFunction(this, 'Function', {
      route: workerFunction,
      table: props.table,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      timeoutSeconds: WORKER_TIMEOUT_SECONDS,
      environment: { LOG_LEVEL: 'INFO', EVENT_BUS_NAME: this.eventBus.eventBusName },
    });
    const worker = workerConstruct.function;
    this.eventBus.grantPutEventsTo(worker);
    Validations.of(workerConstruct).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "The event source mapping grants dynamodb:ListStreams, an action IAM cannot scope to a resource; the stream's own read actions are granted on the table's stream only.",
    });

    worker.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        // Records of one partition key stay in order across the parallel batches.
        parallelizationFactor: 4,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: 10,
        onFailure: new SqsDlq(this.deadLetters),
        filters: streamFilters.map((pattern) => FilterCriteria.filter(pattern as Record<string, unknown>)),
      }),
    );

    this.alarm = new Alarm(this, 'FailedRecordsAlarm', {
      alarmDescription: `The background worker gave up on stream records (queue ${this.deadLetters.queueName}): look at them, fix, and replay.`,
      metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
