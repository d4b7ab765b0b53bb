/**
 * Who hears when the service breaks, and where to look: one SNS topic every alarm notifies (its
 * subscriber from the deployment config, `alarmEmail`), the alarms, and one CloudWatch dashboard.
 * What each alarm means and what to do when it fires: docs/operations.md, "Alarms".
 *
 * - **API 5xx rate** (API Gateway's own metrics): every way a route fails reaches its caller as
 *   a 5xx (a handled 500/503, an unhandled error, a timeout, a throttled function), so the rate
 *   of 5xx is the one signal of what users see.
 * - **Errors and throttles per function**: an alarm each, on `errors + throttles`. CloudWatch
 *   bills an alarm per metric it reads, so one aggregate over 33 functions would cost the same
 *   as 33 alarms, and metric math takes only 10 metrics an alarm; one per function names the
 *   function that fails. A route function's error is never a handled answer (those are 4xx/5xx
 *   answers): it is a crash, a timeout or an init failure.
 * - **DynamoDB**: throttled requests and system errors of the table, over the operations the
 *   service uses.
 * - **The worker**: its alarms (background-worker.ts: failed records, iterator age, failing
 *   sweeps) notify the same topic.
 * - **Uploads** (`watchUploads`, with the file bucket): S3 4xx and 5xx of the bucket (broken
 *   presigned URLs) and failed uploads (the finalising step's metric, and its function's errors
 *   once the files feature passes it).
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
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
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { SERVICE_NAME, type ServiceMetric, serviceMetrics } from '#core/metrics';
import type { BackgroundWorker } from './background-worker';

const FIVE_MINUTES = Duration.minutes(5);
const RUNBOOK = 'docs/operations.md';

/** The thresholds, in one place (docs/operations.md quotes them). */
export const alarmThresholds = {
  /** Percent of API requests answered 5xx, in each of two 5-minute periods… */
  apiServerErrorPercent: 1,
  /** …counted only when a period has at least this many requests (one failure of three is not an outage). */
  apiMinimumRequests: 20,
  /** Errors + throttles of one function in 5 minutes. */
  functionFailures: 3,
  /** DynamoDB throttled requests in 5 minutes (the SDK retries them; a few are weather). */
  tableThrottles: 10,
  /** DynamoDB system errors (HTTP 500) in 5 minutes. */
  tableSystemErrors: 5,
  /** Percent of the bucket's requests answered 4xx (presigned URLs refused), in 15 minutes. */
  bucketClientErrorPercent: 5,
  /** S3 5xx in 15 minutes. */
  bucketServerErrors: 5,
  /** Uploads the finalising step failed, in 15 minutes. */
  uploadsFailed: 3,
} as const;

/**
 * The table operations the service sends (store, idempotency layer, stream), whose throttles and
 * system errors are watched: at most 10, the metric-math limit of an alarm.
 */
export const watchedTableOperations = [
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.BATCH_WRITE_ITEM,
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.GET_RECORDS,
] as const;

/** A function to watch: its name in the route table, and its route key for a route. */
export interface WatchedFunction {
  readonly name: string;
  readonly routeKey?: string;
  readonly fn: IFunction;
}

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
  readonly alarmEmail?: string;
  readonly api: HttpApi;
  readonly table: Table;
  readonly functions: readonly WatchedFunction[];
  readonly worker: BackgroundWorker;
}

export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;
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
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    this.apiAlarm();
    for (const watched of props.functions) this.functionAlarm(watched);
    this.tableAlarms();
    for (const alarm of [props.worker.alarm, props.worker.iteratorAgeAlarm, props.worker.sweeperAlarm]) this.notify(alarm);

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-operations`,
      defaultInterval: Duration.hours(3),
    });
    this.fillDashboard();
  }

  /** The service's own metric `metric`, summed over every route when `route` is not given. */
  private own(metric: ServiceMetric, options: { route?: string; statistic?: string; period?: Duration; label?: string } = {}): Metric {
    const spec = serviceMetrics[metric];
    return new Metric({
      namespace: this.props.metricsNamespace,
      metricName: spec.name,
      dimensionsMap: { service: SERVICE_NAME, ...(options.route ? { route: options.route } : {}) },
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

  private functionAlarm({ name, fn }: WatchedFunction): void {
    const failures = new MathExpression({
      expression: 'FILL(errors, 0) + FILL(throttles, 0)',
      usingMetrics: {
        errors: fn.metricErrors({ statistic: Stats.SUM, period: FIVE_MINUTES }),
        throttles: fn.metricThrottles({ statistic: Stats.SUM, period: FIVE_MINUTES }),
      },
      label: `${name} errors + throttles`,
      period: FIVE_MINUTES,
    });
    this.notify(
      new Alarm(this, `${name}FailuresAlarm`, {
        alarmDescription: `The ${name} function failed or was throttled ${alarmThresholds.functionFailures} times or more in 5 minutes (a crash, a timeout, an init failure, or no concurrency left). ${RUNBOOK}: "Function errors and throttles".`,
        metric: failures,
        threshold: alarmThresholds.functionFailures,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** The sum of a table metric over the watched operations; a missing operation counts 0. */
  private tableSum(metricName: 'ThrottledRequests' | 'SystemErrors', label: string): MathExpression {
    const { table } = this.props;
    // Ids unique within a graph that shows both sums: METRICS("<prefix>") picks this sum's own.
    const prefix = metricName === 'ThrottledRequests' ? 'ddbthrottled' : 'ddbsystemerror';
    return new MathExpression({
      expression: `SUM(FILL(METRICS("${prefix}"), 0))`,
      usingMetrics: Object.fromEntries(
        watchedTableOperations.map((operation) => [
          `${prefix}_${operation.toLowerCase()}`,
          table.metric(metricName, {
            dimensionsMap: { TableName: table.tableName, Operation: operation },
            statistic: Stats.SUM,
            period: FIVE_MINUTES,
          }),
        ]),
      ),
      label,
      period: FIVE_MINUTES,
    });
  }

  private tableAlarms(): void {
    this.notify(
      new Alarm(this, 'TableThrottlesAlarm', {
        alarmDescription: `DynamoDB throttled ${alarmThresholds.tableThrottles} or more requests of the table in 5 minutes: a hot partition or a burst beyond on-demand's headroom; requests slow down and some end in 503. ${RUNBOOK}: "DynamoDB throttles".`,
        metric: this.tableSum('ThrottledRequests', 'Throttled requests'),
        threshold: alarmThresholds.tableThrottles,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    this.notify(
      new Alarm(this, 'TableSystemErrorsAlarm', {
        alarmDescription: `DynamoDB answered ${alarmThresholds.tableSystemErrors} or more requests with a server error in 5 minutes: an AWS-side problem; requests fail with 503 after the SDK's retries. ${RUNBOOK}: "DynamoDB system errors".`,
        metric: this.tableSum('SystemErrors', 'System errors'),
        threshold: alarmThresholds.tableSystemErrors,
        evaluationPeriods: 1,
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
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Uploads bucket: requests, 4xx, 5xx; bytes stored',
        left: ['AllRequests', '4xxErrors', '5xxErrors'].map((name) => this.bucketMetric(uploads, name, FIVE_MINUTES)),
        right: [this.storageMetric(uploads)],
        width: 24,
        height: 6,
      }),
    );
    if (uploads.finaliser) this.functionAlarm({ name: 'UploadFinaliser', fn: uploads.finaliser });
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

  /** A SEARCH over the service's per-route metric `names`: one line per route (dashboards only; alarms cannot search). */
  private perRoute(names: readonly string[], statistic: string, label: string): MathExpression {
    const namespace = JSON.stringify(this.props.metricsNamespace);
    const metricNames = names.map((name) => JSON.stringify(name)).join(' OR ');
    return new MathExpression({
      expression: `SEARCH('{${namespace},route,service} MetricName=(${metricNames})', '${statistic}', 300)`,
      label,
      period: FIVE_MINUTES,
    });
  }

  private fillDashboard(): void {
    const { api, table, worker, functions } = this.props;
    const graph = (title: string, left: IMetric[], right: IMetric[] = [], width = 12) =>
      new GraphWidget({ title, left, right, width, height: 6 });
    const allFunctions = (metric: 'errors' | 'throttles') =>
      new MathExpression({
        expression: `SUM(FILL(METRICS("fn${metric}"), 0))`,
        usingMetrics: Object.fromEntries(
          functions.map((watched, i) => [
            `fn${metric}${i}`,
            metric === 'errors'
              ? watched.fn.metricErrors({ statistic: Stats.SUM, period: FIVE_MINUTES })
              : watched.fn.metricThrottles({ statistic: Stats.SUM, period: FIVE_MINUTES }),
          ]),
        ),
        label: `Lambda ${metric}, all functions`,
        period: FIVE_MINUTES,
      });
    const d = this.dashboard;
    d.addWidgets(
      new TextWidget({
        markdown: `# ${Stack.of(this).stackName}\nAlarms and what to do: ${RUNBOOK}. Metrics of the service: namespace \`${this.props.metricsNamespace}\`, dimensions \`service\` and \`route\`.`,
        width: 24,
        height: 2,
      }),
    );
    d.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 4 }));
    d.addWidgets(
      graph(
        'API: requests, 4xx, 5xx',
        [
          api.metricCount({ statistic: Stats.SUM, period: FIVE_MINUTES, label: 'requests' }),
          api.metricClientError({ statistic: Stats.SUM, period: FIVE_MINUTES, label: '4xx' }),
          api.metricServerError({ statistic: Stats.SUM, period: FIVE_MINUTES, label: '5xx' }),
        ],
        [],
      ),
      graph('API latency (p50, p99)', [
        api.metricLatency({ statistic: Stats.p(50), period: FIVE_MINUTES, label: 'p50' }),
        api.metricLatency({ statistic: Stats.p(99), period: FIVE_MINUTES, label: 'p99' }),
      ]),
    );
    d.addWidgets(
      graph('Answers per route and status class', [
        this.perRoute([serviceMetrics.answered2xx.name, serviceMetrics.answered4xx.name, serviceMetrics.answered5xx.name], 'Sum', ' '),
      ]),
      graph('Handler duration per route (p99, ms)', [this.perRoute([serviceMetrics.handlerDuration.name], 'p99', ' ')]),
    );
    d.addWidgets(
      graph(
        'Errors and throttles (Lambda, all functions; DynamoDB)',
        [allFunctions('errors'), allFunctions('throttles')],
        [this.tableSum('ThrottledRequests', 'DynamoDB throttled requests'), this.tableSum('SystemErrors', 'DynamoDB system errors')],
      ),
      graph('Cold starts per route', [this.perRoute([serviceMetrics.coldStart.name], 'Sum', ' ')]),
    );
    d.addWidgets(
      graph(
        'Worker: lag',
        [worker.worker.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: FIVE_MINUTES, label: 'IteratorAge (max, ms)' })],
        [this.own('feedLag', { statistic: Stats.p(99), label: 'FeedLag p99 (ms)' })],
      ),
      graph(
        'Worker: tasks and failures',
        [this.own('tasksCompleted'), this.own('tasksRetried'), this.own('tasksFailed')],
        [worker.deadLetters.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, label: 'failed records (queue)' })],
      ),
    );
    d.addWidgets(
      graph(
        'Created',
        [this.own('repositoriesCreated'), this.own('foldersCreated'), this.own('documentsCreated')],
        [this.own('itemsTrashed'), this.own('itemsPurged')],
      ),
      graph('Uploads', [this.own('uploadsCompleted'), this.own('uploadsFailed')], [this.own('bytesUploaded')]),
    );
    d.addWidgets(
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
