/**
 * Who hears when the service breaks, and where to look: one SNS topic every alarm notifies (its
 * subscriber from the deployment config, `alarmEndpoint`: an email address or an https URL), the
 * alarms, and, where the environment asks for it (`dashboard`), one CloudWatch dashboard.
 * What each alarm means and what to do when it fires: docs/operations.md, "Alarms".
 *
 * CloudWatch bills an alarm per metric it reads ($0.10 a month each, bench/cost-model.ts), so the
 * alarms are few and aggregate, and each failure still reaches one of them:
 * - **API 5xx rate** (API Gateway's own metrics): every way a route fails reaches its caller as
 *   a 5xx (a handled 500/503, an unhandled error, a timeout, a throttled function).
 * - **Function errors**: Lambda's `Errors` summed over every function of the region (the metric
 *   without dimensions, one metric whatever the number of functions): a crash, a timeout or an
 *   init failure of a route, the fallback, the worker, the sweeper or the finaliser. Throttles
 *   are not failures here: a route's throttle is a 5xx its caller sees (the API alarm), the
 *   worker's and the sweeper's are their reserved concurrency doing its job (the stream waits:
 *   the iterator-age alarm).
 * - **DynamoDB throttles**: the table's read and write throttle events. A system error (HTTP 500)
 *   the SDK's retries do not absorb is a 503 (the API alarm) or a failed task (the worker's).
 * - **The worker**: its alarms (background-worker.ts: failed records, iterator age, failing
 *   sweeps) notify the same topic.
 * - **Search index lag**: the worker's `SearchIndexLag` (functions/worker/indexer.ts): search
 *   that stays stale although nothing fails (a slow or resuming cluster, a worker far behind).
 * - **Uploads** (`watchUploads`, with the file bucket): S3 4xx and 5xx of the bucket (broken
 *   presigned URLs) and failed uploads (the finalising step's metric).
 */
import { Aws, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  Stats,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, UrlSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { SERVICE_NAME, type ServiceMetric, serviceMetrics } from '#core/metrics';
import type { BackgroundWorker } from './background-worker';
import type { DeploymentConfig } from './config';

const FIVE_MINUTES = Duration.minutes(5);
const RUNBOOK = 'docs/operations.md';

/** The thresholds, in one place (docs/operations.md quotes them). */
export const alarmThresholds = {
  /** Percent of API requests answered 5xx, in each of two 5-minute periods… */
  apiServerErrorPercent: 1,
  /** …counted only when a period has at least this many requests (one failure of three is not an outage). */
  apiMinimumRequests: 20,
  /** Lambda errors of all functions in 5 minutes. */
  functionErrors: 3,
  /** DynamoDB read and write throttle events in 5 minutes (the SDK retries them; a few are weather). */
  tableThrottles: 10,
  /** Percent of the bucket's requests answered 4xx (presigned URLs refused), in 15 minutes. */
  bucketClientErrorPercent: 5,
  /** S3 5xx in 15 minutes. */
  bucketServerErrors: 5,
  /** Uploads the finalising step failed, in 15 minutes. */
  uploadsFailed: 3,
  /**
   * p95 of `SearchIndexLag` (ms from a change's commit to its row in the search index), in each of
   * two 5-minute periods: the goal is seconds (stream batching window 1 s, a resuming cluster ~15 s).
   */
  searchIndexLagMs: 60_000,
} as const;

/**
 * The files feature's part: its bucket, with a request-metrics configuration of `metricsFilterId`
 * (S3 publishes 4xxErrors/5xxErrors only for such a filter), and, if there is one, the function
 * that finalises uploads.
 */
export interface WatchedUploads {
  readonly bucket: IBucket;
  readonly metricsFilterId: string;
  readonly finaliser?: IFunction;
}

export interface MonitoringProps {
  readonly metricsNamespace: string;
  readonly alarmEndpoint?: DeploymentConfig['alarmEndpoint'];
  readonly api: HttpApi;
  readonly table: Table;
  readonly worker: BackgroundWorker;
  /** Make the dashboard ($3 a month). */
  readonly dashboard: boolean;
}

export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard | undefined;
  private readonly props: MonitoringProps;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.props = props;
    this.topic = new Topic(this, 'Alarms', { displayName: `${Stack.of(this).stackName} alarms`, enforceSSL: true });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names and metric values, no customer data; CloudWatch cannot publish to a topic encrypted with the AWS managed SNS key, and a key of our own would cost more than the alarms.',
    });
    // enforceSSL writes a topic policy with a Deny only, which replaces the default policy: without
    // this Allow, CloudWatch could not publish (SNS developer guide, "Amazon SNS topic policies for
    // CloudWatch alarms"). Scoped to this account's alarms of this stack (CloudFormation names
    // them `<stack name>-<logical id>-<suffix>`), against the confused deputy.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: {
            'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:${Stack.of(this).stackName}-*`,
          },
        },
      }),
    );
    const subscriber = props.alarmEndpoint;
    if (subscriber?.protocol === 'email') this.topic.addSubscription(new EmailSubscription(subscriber.endpoint));
    if (subscriber?.protocol === 'https') this.topic.addSubscription(new UrlSubscription(subscriber.endpoint));

    this.apiAlarm();
    this.functionsAlarm();
    this.tableAlarm();
    this.searchAlarm();
    for (const alarm of [props.worker.alarm, props.worker.iteratorAgeAlarm, props.worker.sweeperAlarm]) this.notify(alarm);

    this.dashboard = props.dashboard
      ? new Dashboard(this, 'Dashboard', { dashboardName: `${Stack.of(this).stackName}-operations`, defaultInterval: Duration.hours(3) })
      : undefined;
    if (this.dashboard) this.fillDashboard(this.dashboard);
  }

  /** The service's own metric `metric` (its only dimension is `service`: functions/core/metrics.ts). */
  private own(metric: ServiceMetric, options: { statistic?: string; period?: Duration; label?: string } = {}): Metric {
    const spec = serviceMetrics[metric];
    return new Metric({
      namespace: this.props.metricsNamespace,
      metricName: spec.name,
      dimensionsMap: { service: SERVICE_NAME },
      statistic: options.statistic ?? Stats.SUM,
      period: options.period ?? FIVE_MINUTES,
      ...(options.label ? { label: options.label } : {}),
    });
  }

  private notify(alarm: Alarm): Alarm {
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    if (!this.alarms.includes(alarm)) this.alarms.push(alarm);
    return alarm;
  }

  private apiAlarm(): void {
    const { api } = this.props;
    const rate = new MathExpression({
      expression: `IF(requests >= ${alarmThresholds.apiMinimumRequests}, 100 * errors / requests, 0)`,
      usingMetrics: {
        errors: api.metricServerError({ statistic: Stats.SUM, period: FIVE_MINUTES }),
        requests: api.metricCount({ statistic: Stats.SUM, period: FIVE_MINUTES }),
      },
      label: 'API 5xx (% of requests)',
      period: FIVE_MINUTES,
    });
    this.notify(
      new Alarm(this, 'ApiServerErrorsAlarm', {
        alarmDescription: `More than ${alarmThresholds.apiServerErrorPercent}% of API requests were answered 5xx in two 5-minute periods running: users see failures (a route failing, timing out, throttled, or the table unavailable). ${RUNBOOK}: "API 5xx rate".`,
        metric: rate,
        threshold: alarmThresholds.apiServerErrorPercent,
        evaluationPeriods: 2,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** Lambda's metric `name` over every function of the account's region (the metric without dimensions). */
  private allFunctions(metricName: 'Errors' | 'Throttles', label?: string): Metric {
    return new Metric({ namespace: 'AWS/Lambda', metricName, statistic: Stats.SUM, period: FIVE_MINUTES, ...(label ? { label } : {}) });
  }

  private functionsAlarm(): void {
    this.notify(
      new Alarm(this, 'FunctionErrorsAlarm', {
        alarmDescription: `Lambda functions failed ${alarmThresholds.functionErrors} times or more in 5 minutes (a crash, a timeout or an init failure of a route, the worker, the sweeper or the finaliser; every function of the region counts). ${RUNBOOK}: "Function errors".`,
        metric: this.allFunctions('Errors'),
        threshold: alarmThresholds.functionErrors,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** The table's read and write throttle events (the table's own dimension: two metrics, whatever the operations). */
  private tableThrottles(): MathExpression {
    const { table } = this.props;
    const events = (metricName: string) =>
      table.metric(metricName, { dimensionsMap: { TableName: table.tableName }, statistic: Stats.SUM, period: FIVE_MINUTES });
    return new MathExpression({
      expression: 'FILL(reads, 0) + FILL(writes, 0)',
      usingMetrics: { reads: events('ReadThrottleEvents'), writes: events('WriteThrottleEvents') },
      label: 'DynamoDB throttle events',
      period: FIVE_MINUTES,
    });
  }

  private tableAlarm(): void {
    this.notify(
      new Alarm(this, 'TableThrottlesAlarm', {
        alarmDescription: `DynamoDB throttled ${alarmThresholds.tableThrottles} or more requests of the table in 5 minutes: a hot partition or a burst beyond on-demand's headroom; requests slow down and some end in 503. ${RUNBOOK}: "DynamoDB throttles".`,
        metric: this.tableThrottles(),
        threshold: alarmThresholds.tableThrottles,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  private searchAlarm(): void {
    this.notify(
      new Alarm(this, 'SearchIndexLagAlarm', {
        alarmDescription: `Search is stale: the p95 of SearchIndexLag (a change's commit to its row in the search index) was ${alarmThresholds.searchIndexLagMs / 1_000} s or more in two 5-minute periods running; users do not find what they just wrote. ${RUNBOOK}: "Search index lag".`,
        metric: this.own('searchIndexLag', { statistic: Stats.p(95) }),
        threshold: alarmThresholds.searchIndexLagMs,
        evaluationPeriods: 2,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  private bucketMetric(uploads: WatchedUploads, metricName: string, period: Duration): Metric {
    return new Metric({
      namespace: 'AWS/S3',
      metricName,
      dimensionsMap: { BucketName: uploads.bucket.bucketName, FilterId: uploads.metricsFilterId },
      statistic: Stats.SUM,
      period,
    });
  }

  /** The files feature's bucket and finalising step: their alarms, and a row of the dashboard. */
  watchUploads(uploads: WatchedUploads): void {
    const period = Duration.minutes(15);
    this.dashboard?.addWidgets(
      new GraphWidget({
        title: 'Uploads bucket: requests, 4xx, 5xx; bytes stored',
        left: ['AllRequests', '4xxErrors', '5xxErrors'].map((name) => this.bucketMetric(uploads, name, FIVE_MINUTES)),
        right: [this.storageMetric(uploads)],
        width: 24,
        height: 6,
      }),
    );
    // The finaliser's errors are among all functions' (FunctionErrorsAlarm).
    this.notify(
      new Alarm(this, 'BucketClientErrorsAlarm', {
        alarmDescription: `More than ${alarmThresholds.bucketClientErrorPercent}% of the bucket's requests were refused (4xx) in 15 minutes: presigned URLs that do not work (signature, expiry, clock, CORS). ${RUNBOOK}: "S3 4xx and 5xx, uploads failing".`,
        metric: new MathExpression({
          expression: `IF(requests >= ${alarmThresholds.apiMinimumRequests}, 100 * FILL(errors, 0) / requests, 0)`,
          usingMetrics: {
            errors: this.bucketMetric(uploads, '4xxErrors', period),
            requests: this.bucketMetric(uploads, 'AllRequests', period),
          },
          period,
        }),
        threshold: alarmThresholds.bucketClientErrorPercent,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    this.notify(
      new Alarm(this, 'BucketServerErrorsAlarm', {
        alarmDescription: `S3 answered ${alarmThresholds.bucketServerErrors} or more of the bucket's requests with 5xx in 15 minutes: uploads and downloads fail on AWS's side. ${RUNBOOK}: "S3 4xx and 5xx, uploads failing".`,
        metric: this.bucketMetric(uploads, '5xxErrors', period),
        threshold: alarmThresholds.bucketServerErrors,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    this.notify(
      new Alarm(this, 'UploadsFailedAlarm', {
        alarmDescription: `The upload finalising step failed ${alarmThresholds.uploadsFailed} or more uploads in 15 minutes: uploaded bytes are not becoming documents. ${RUNBOOK}: "S3 4xx and 5xx, uploads failing".`,
        metric: this.own('uploadsFailed', { period }),
        threshold: alarmThresholds.uploadsFailed,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  private fillDashboard(d: Dashboard): void {
    const { api, table, worker } = this.props;
    const graph = (title: string, left: IMetric[], right: IMetric[] = [], width = 12) =>
      new GraphWidget({ title, left, right, width, height: 6 });
    d.addWidgets(
      new TextWidget({
        markdown: `# ${Stack.of(this).stackName}\nAlarms and what to do: ${RUNBOOK}. Metrics of the service: namespace \`${this.props.metricsNamespace}\`, dimension \`service\` (the route key is in each line's metadata: Logs Insights).`,
        width: 24,
        height: 2,
      }),
    );
    // Every alarm of the stack, those added later (watchUploads) too: the widget reads the list at synth.
    d.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 4 }));
    d.addWidgets(
      graph('API: requests, 4xx, 5xx', [
        api.metricCount({ statistic: Stats.SUM, period: FIVE_MINUTES, label: 'requests' }),
        api.metricClientError({ statistic: Stats.SUM, period: FIVE_MINUTES, label: '4xx' }),
        api.metricServerError({ statistic: Stats.SUM, period: FIVE_MINUTES, label: '5xx' }),
      ]),
      graph('API latency (p50, p99)', [
        api.metricLatency({ statistic: Stats.p(50), period: FIVE_MINUTES, label: 'p50' }),
        api.metricLatency({ statistic: Stats.p(99), period: FIVE_MINUTES, label: 'p99' }),
      ]),
    );
    d.addWidgets(
      graph('Answers by status class', [this.own('answered2xx'), this.own('answered4xx'), this.own('answered5xx')]),
      graph(
        'Handler duration (p99, ms) and cold starts',
        [this.own('handlerDuration', { statistic: Stats.p(99) })],
        [this.own('coldStart')],
      ),
    );
    d.addWidgets(
      graph(
        'Errors and throttles (Lambda, all functions; DynamoDB)',
        [this.allFunctions('Errors', 'Lambda errors, all functions'), this.allFunctions('Throttles', 'Lambda throttles, all functions')],
        [this.tableThrottles()],
      ),
      graph(
        'Worker: lag',
        [worker.worker.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: FIVE_MINUTES, label: 'IteratorAge (max, ms)' })],
        [
          this.own('feedLag', { statistic: Stats.p(99), label: 'FeedLag p99 (ms)' }),
          this.own('searchIndexLag', { statistic: Stats.p(95), label: 'SearchIndexLag p95 (ms)' }),
        ],
      ),
    );
    d.addWidgets(
      graph(
        'Worker: tasks and failures',
        [this.own('tasksCompleted'), this.own('tasksRetried'), this.own('tasksFailed')],
        [worker.deadLetters.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, label: 'failed records (queue)' })],
      ),
      graph(
        'Created',
        [this.own('repositoriesCreated'), this.own('foldersCreated'), this.own('documentsCreated')],
        [this.own('itemsTrashed'), this.own('itemsPurged')],
      ),
    );
    d.addWidgets(
      graph('Uploads', [this.own('uploadsCompleted'), this.own('uploadsFailed')], [this.own('bytesUploaded')]),
      graph('DynamoDB capacity consumed', [
        table.metricConsumedReadCapacityUnits({ statistic: Stats.SUM, period: FIVE_MINUTES, label: 'RCU' }),
        table.metricConsumedWriteCapacityUnits({ statistic: Stats.SUM, period: FIVE_MINUTES, label: 'WCU' }),
      ]),
    );
  }

  /** Bytes stored in the bucket (S3 publishes it once a day). */
  private storageMetric(uploads: WatchedUploads): Metric {
    return new Metric({
      namespace: 'AWS/S3',
      metricName: 'BucketSizeBytes',
      dimensionsMap: { BucketName: uploads.bucket.bucketName, StorageType: 'StandardStorage' },
      statistic: Stats.AVERAGE,
      period: Duration.days(1),
      label: 'stored (bytes)',
    });
  }
}
