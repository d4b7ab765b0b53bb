/**
 * Operations in the synthesized template (lib/stack/monitoring.ts, route-function.ts): the
 * alarm topic and its subscriber from the deployment config, every alarm with its threshold,
 * its reason and its actions, the dashboard, the metrics namespace and the tracing setting on
 * every function, log retention, and the uploads' alarms once the files feature passes its
 * bucket. Synthesizing runs cdk-nag: an unacknowledged finding throws. Bundling is skipped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { SERVICE_NAME, serviceMetrics } from '#core/metrics';
import { projectRoot } from '#lib/bundling';
import { buildApp } from '#lib/stack/app';
import { ITERATOR_AGE_ALARM_MS } from '#lib/stack/background-worker';
import { FILES_METRICS_FILTER, type FileBucket } from '#lib/stack/file-bucket';
import { alarmThresholds } from '#lib/stack/monitoring';
import { flatTemplate, testContext, testEnvironment } from '#test/support/stack';

type Resource = { Type: string; Properties: Record<string, any> };

const appFor = (settings: Record<string, unknown>) => buildApp({ context: testContext(settings) });

const NAMESPACE = 'Documents/Test';
const traced = flatTemplate(
  appFor({ metricsNamespace: NAMESPACE, tracing: true, alarmEndpoint: 'oncall@example.com', dashboard: true }).stack,
);
const untraced = flatTemplate(appFor({}).stack);

const resourcesOf = (template: Template, type: string) => template.findResources(type) as Record<string, Resource>;
const topicId = (template: Template) => {
  const ids = Object.keys(resourcesOf(template, 'AWS::SNS::Topic'));
  expect(ids).toHaveLength(1);
  return ids[0]!;
};
const alarms = (template: Template) => resourcesOf(template, 'AWS::CloudWatch::Alarm');
const alarm = (template: Template, prefix: string) => {
  const found = Object.entries(alarms(template)).filter(([id]) => id.startsWith(prefix));
  expect(found, prefix).toHaveLength(1);
  return found[0]![1].Properties;
};
/** The metric-math expression an alarm evaluates (the one query it returns). */
const expressionOf = (properties: Record<string, any>): string =>
  properties.Metrics.find((query: { ReturnData?: boolean; Expression?: string }) => query.ReturnData !== false && query.Expression)
    .Expression;
const metricsOf = (properties: Record<string, any>) =>
  properties.Metrics.filter((query: { MetricStat?: unknown }) => query.MetricStat).map(
    (query: { MetricStat: { Metric: Record<string, any> } }) => query.MetricStat.Metric,
  );

describe('the alarm topic', () => {
  it('is one SNS topic, SSL only, with the configured email as its subscriber', () => {
    const id = topicId(traced);
    traced.resourceCountIs('AWS::SNS::Subscription', 1);
    traced.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com', TopicArn: { Ref: id } });
  });

  it('takes an https endpoint (a paging tool) as its subscriber too', () => {
    const template = flatTemplate(appFor({ alarmEndpoint: 'https://events.example.com/integration/abc?x=1' }).stack);
    template.resourceCountIs('AWS::SNS::Subscription', 1);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'https',
      Endpoint: 'https://events.example.com/integration/abc?x=1',
      TopicArn: { Ref: topicId(template) },
    });
  });

  it('has no subscriber when the environment names none', () => {
    topicId(untraced);
    untraced.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('lets CloudWatch publish, from this account’s alarms of this stack only, and refuses plain HTTP', () => {
    // enforceSSL's policy replaces the topic's default one: without an Allow nobody may publish.
    for (const template of [traced, untraced]) {
      const policies = Object.values(resourcesOf(template, 'AWS::SNS::TopicPolicy'));
      expect(policies).toHaveLength(1);
      const { Topics, PolicyDocument } = policies[0]!.Properties;
      expect(Topics).toEqual([{ Ref: topicId(template) }]);
      const statements = PolicyDocument.Statement as Record<string, any>[];
      const allow = statements.filter((statement) => statement.Effect === 'Allow');
      expect(allow).toHaveLength(1);
      expect(allow[0]).toMatchObject({
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: topicId(template) },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      });
      const sourceArn = JSON.stringify(allow[0]!.Condition.ArnLike['aws:SourceArn']);
      expect(sourceArn).toContain(':cloudwatch:');
      expect(sourceArn).toContain(`:alarm:${testEnvironment.stackName}-*`);
      expect(statements.filter((statement) => statement.Effect === 'Deny')).toEqual([
        expect.objectContaining({ Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]);
    }
  });

  it('hears every alarm of the stack, when it fires and when it clears, and each alarm says why and where the runbook is', () => {
    for (const template of [traced, untraced]) {
      const topic = { Ref: topicId(template) };
      const all = Object.entries(alarms(template));
      expect(all.length).toBeGreaterThan(0);
      for (const [id, { Properties }] of all) {
        expect(Properties.AlarmActions, id).toEqual([topic]);
        expect(Properties.OKActions, id).toEqual([topic]);
        expect(JSON.stringify(Properties.AlarmDescription), id).toMatch(/docs\/operations\.md: \\"[^"\\]+\\"/);
        expect(Properties.TreatMissingData, id).toBe('notBreaching');
      }
    }
  });
});

/** The metric an alarm reads: `namespace metricName statistic period [dimension=value…]`, values of refs by logical id. */
const describeMetric = (metric: Record<string, any>, statistic: string, period: number) => {
  const dimensions = (metric.Dimensions ?? []).map(
    (d: { Name: string; Value: unknown }) => `${d.Name}=${typeof d.Value === 'string' ? d.Value : JSON.stringify(d.Value)}`,
  );
  return [metric.Namespace, metric.MetricName, statistic, period, ...dimensions].join(' ');
};
/** Every metric an alarm reads, whether it reads one or a math expression over several. */
const readsOf = (properties: Record<string, any>): string[] =>
  properties.Metrics
    ? metricsOfQueries(properties.Metrics)
    : [
        describeMetric(
          { Namespace: properties.Namespace, MetricName: properties.MetricName, Dimensions: properties.Dimensions },
          properties.Statistic ?? properties.ExtendedStatistic,
          properties.Period,
        ),
      ];
const metricsOfQueries = (queries: Record<string, any>[]) =>
  queries
    .filter((query) => query.MetricStat)
    .map((query) => `${query.Id}: ${describeMetric(query.MetricStat.Metric, query.MetricStat.Stat, query.MetricStat.Period)}`)
    .sort();

describe('the alarms', () => {
  const template = traced;
  /** The one resource of `type` whose logical id is `prefix` and CDK's 8-digit hash. */
  const logicalId = (type: string, prefix: string) => {
    const ids = Object.keys(resourcesOf(template, type)).filter((id) => new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id));
    expect(ids, prefix).toHaveLength(1);
    return ids[0]!;
  };
  const ref = (type: string, prefix: string) => JSON.stringify({ Ref: logicalId(type, prefix) });

  it('each name a section of docs/operations.md that says what to do', () => {
    const headings = readFileSync(join(projectRoot, 'docs', 'operations.md'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('#'));
    for (const [id, { Properties }] of Object.entries(alarms(traced))) {
      const section = /docs\/operations\.md: \\"([^"\\]+)\\"/.exec(JSON.stringify(Properties.AlarmDescription))![1]!;
      expect(
        headings.some((heading) => heading.includes(section)),
        `${id}: "${section}"`,
      ).toBe(true);
    }
  });

  /**
   * Every alarm of the stack, by its logical id's prefix: what it reads, the expression it
   * evaluates (if any), its threshold, comparison and periods. An alarm added or dropped, a
   * metric, threshold or comparison changed: this table fails.
   */
  const expected = () => ({
    MonitoringApiServerErrorsAlarm: {
      reads: [
        `errors: AWS/ApiGateway 5xx Sum 300 ApiId=${ref('AWS::ApiGatewayV2::Api', 'Api')}`,
        `requests: AWS/ApiGateway Count Sum 300 ApiId=${ref('AWS::ApiGatewayV2::Api', 'Api')}`,
      ],
      expression: `IF(requests >= ${alarmThresholds.apiMinimumRequests}, 100 * errors / requests, 0)`,
      threshold: alarmThresholds.apiServerErrorPercent,
      comparison: 'GreaterThanThreshold',
      periods: 2,
    },
    MonitoringFunctionErrorsAlarm: {
      reads: ['AWS/Lambda Errors Sum 300'],
      threshold: alarmThresholds.functionErrors,
      comparison: 'GreaterThanOrEqualToThreshold',
      periods: 1,
    },
    MonitoringTableThrottlesAlarm: {
      reads: [
        `reads: AWS/DynamoDB ReadThrottleEvents Sum 300 TableName=${ref('AWS::DynamoDB::Table', 'Table')}`,
        `writes: AWS/DynamoDB WriteThrottleEvents Sum 300 TableName=${ref('AWS::DynamoDB::Table', 'Table')}`,
      ],
      expression: 'FILL(reads, 0) + FILL(writes, 0)',
      threshold: alarmThresholds.tableThrottles,
      comparison: 'GreaterThanOrEqualToThreshold',
      periods: 1,
    },
    MonitoringSearchIndexLagAlarm: {
      reads: [`${NAMESPACE} ${serviceMetrics.searchIndexLag.name} p95 300 service=${SERVICE_NAME}`],
      threshold: alarmThresholds.searchIndexLagMs,
      comparison: 'GreaterThanOrEqualToThreshold',
      periods: 2,
    },
    WorkerFailedRecordsAlarm: {
      reads: [
        `AWS/SQS ApproximateNumberOfMessagesVisible Maximum 60 QueueName=${JSON.stringify({ 'Fn::GetAtt': [logicalId('AWS::SQS::Queue', 'WorkerFailedRecords'), 'QueueName'] })}`,
      ],
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
      periods: 1,
    },
    WorkerIteratorAgeAlarm: {
      reads: [`AWS/Lambda IteratorAge Maximum 60 FunctionName=${ref('AWS::Lambda::Function', 'WorkerFunction')}`],
      threshold: ITERATOR_AGE_ALARM_MS,
      comparison: 'GreaterThanOrEqualToThreshold',
      periods: 2,
    },
    WorkerSweeperErrorsAlarm: {
      reads: [`AWS/Lambda Errors Sum 300 FunctionName=${ref('AWS::Lambda::Function', 'WorkerSweeperFunction')}`],
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
      periods: 2,
    },
    MonitoringBucketClientErrorsAlarm: {
      reads: [
        `errors: AWS/S3 4xxErrors Sum 900 BucketName=${ref('AWS::S3::Bucket', 'Files')} FilterId=${FILES_METRICS_FILTER}`,
        `requests: AWS/S3 AllRequests Sum 900 BucketName=${ref('AWS::S3::Bucket', 'Files')} FilterId=${FILES_METRICS_FILTER}`,
      ],
      expression: `IF(requests >= ${alarmThresholds.apiMinimumRequests}, 100 * FILL(errors, 0) / requests, 0)`,
      threshold: alarmThresholds.bucketClientErrorPercent,
      comparison: 'GreaterThanThreshold',
      periods: 1,
    },
    MonitoringBucketServerErrorsAlarm: {
      reads: [`AWS/S3 5xxErrors Sum 900 BucketName=${ref('AWS::S3::Bucket', 'Files')} FilterId=${FILES_METRICS_FILTER}`],
      threshold: alarmThresholds.bucketServerErrors,
      comparison: 'GreaterThanOrEqualToThreshold',
      periods: 1,
    },
    MonitoringUploadsFailedAlarm: {
      reads: [`${NAMESPACE} ${serviceMetrics.uploadsFailed.name} Sum 900 service=${SERVICE_NAME}`],
      threshold: alarmThresholds.uploadsFailed,
      comparison: 'GreaterThanOrEqualToThreshold',
      periods: 1,
    },
  });

  it('are exactly these, each on its metrics, threshold, comparison and periods', () => {
    const table = expected();
    const found = Object.entries(alarms(template));
    expect(found.map(([id]) => Object.keys(table).find((prefix) => id.startsWith(prefix)) ?? id).sort()).toEqual(Object.keys(table).sort());
    for (const [id, { Properties }] of found) {
      const want = Object.entries(table).find(([prefix]) => id.startsWith(prefix))![1];
      expect(readsOf(Properties), id).toEqual([...want.reads].sort());
      expect(Properties.Metrics ? expressionOf(Properties) : undefined, id).toBe('expression' in want ? want.expression : undefined);
      expect(Properties.Threshold, id).toBe(want.threshold);
      expect(Properties.ComparisonOperator, id).toBe(want.comparison);
      expect(Properties.EvaluationPeriods, id).toBe(want.periods);
    }
  });

  it('count no throttle as a function failure: the worker’s are its reserved concurrency at work, a route’s is an API 5xx', () => {
    for (const [id, { Properties }] of Object.entries(alarms(template))) {
      expect(readsOf(Properties).join('\n'), id).not.toContain('Throttles');
    }
  });
});

describe('the uploads: the file bucket (lib/stack/file-bucket.ts)', () => {
  it('adds the S3 4xx rate, S3 5xx and failed-upload alarms, on the bucket’s request-metrics filter and the service namespace', () => {
    const { stack } = appFor({ metricsNamespace: NAMESPACE });
    const template = flatTemplate(stack);
    const bucket = (stack.node.findChild('Files') as FileBucket).bucket;
    const bucketRef = { Ref: stack.getLogicalId(bucket.node.defaultChild as CfnBucket) };
    expect(resourcesOf(template, 'AWS::S3::Bucket')[bucketRef.Ref]?.Properties.MetricsConfigurations).toEqual([
      { Id: FILES_METRICS_FILTER },
    ]);

    const clientErrors = alarm(template, 'MonitoringBucketClientErrorsAlarm');
    expect(expressionOf(clientErrors)).toContain('100 * FILL(errors, 0) / requests');
    expect(clientErrors.Threshold).toBe(alarmThresholds.bucketClientErrorPercent);
    for (const metric of metricsOf(clientErrors)) {
      expect(metric.Namespace).toBe('AWS/S3');
      expect(metric.Dimensions).toEqual([
        { Name: 'BucketName', Value: bucketRef },
        { Name: 'FilterId', Value: FILES_METRICS_FILTER },
      ]);
    }
    expect(alarm(template, 'MonitoringBucketServerErrorsAlarm')).toMatchObject({ Namespace: 'AWS/S3', MetricName: '5xxErrors' });
    expect(Object.keys(alarms(template)).filter((id) => id.includes('Finaliser'))).toEqual([]); // among all functions' errors
    expect(alarm(template, 'MonitoringUploadsFailedAlarm')).toMatchObject({
      Namespace: NAMESPACE,
      MetricName: serviceMetrics.uploadsFailed.name,
      Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
      Threshold: alarmThresholds.uploadsFailed,
    });
  });
});

describe('the dashboard', () => {
  const bodyOf = (template: Template) => {
    const dashboards = Object.values(resourcesOf(template, 'AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    return JSON.stringify(dashboards[0]!.Properties.DashboardBody);
  };
  const body = () => bodyOf(traced);

  it('is made only where the environment asks for it ($3 a month)', () => {
    untraced.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
  });

  it('shows the state of every alarm of the stack, by its ARN', () => {
    const ids = Object.keys(alarms(traced));
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(body(), id).toContain(JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }));
  });

  it('shows answers, duration and cold starts from the service’s namespace, by service', () => {
    for (const metric of [
      serviceMetrics.answered2xx,
      serviceMetrics.answered5xx,
      serviceMetrics.handlerDuration,
      serviceMetrics.coldStart,
    ]) {
      expect(body(), metric.name).toContain(`[\\"${NAMESPACE}\\",\\"${metric.name}\\",\\"service\\",\\"${SERVICE_NAME}\\"`);
    }
  });

  it('shows the API, errors and throttles, the worker’s lag and failures, business events and uploads', () => {
    for (const title of [
      'API: requests, 4xx, 5xx',
      'API latency',
      'Errors and throttles',
      'Worker: lag',
      'Worker: tasks and failures',
      'Created',
      'Uploads',
    ]) {
      expect(body(), title).toContain(title);
    }
    for (const name of [
      'IteratorAge',
      'FeedLag',
      'TasksFailed',
      'UploadsCompleted',
      'BytesUploaded',
      'ApproximateNumberOfMessagesVisible',
    ]) {
      expect(body(), name).toContain(name);
    }
  });
});

describe('every function', () => {
  // The service's functions, not CDK's own BucketDeployment (the web app's files, lib/stack/web-app.ts).
  const functions = (template: Template) =>
    Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).filter(([id]) => !id.startsWith('CustomCDKBucketDeployment'));

  it('writes its metrics to the configured namespace (default: the stack name)', () => {
    for (const [template, namespace] of [
      [traced, NAMESPACE],
      [untraced, 'DocumentsService'],
    ] as const) {
      for (const [id, fn] of functions(template)) {
        expect(fn.Properties.Environment.Variables.POWERTOOLS_METRICS_NAMESPACE, id).toBe(namespace);
      }
    }
  });

  it('is traced with X-Ray when the environment says so, and only then', () => {
    for (const [id, fn] of functions(traced)) {
      expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED, id).toBe('true');
    }
    for (const [id, fn] of functions(untraced)) {
      expect(fn.Properties.TracingConfig, id).toBeUndefined();
      expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED, id).toBeUndefined();
    }
  });

  it('logs at the environment’s level, in Lambda’s JSON format: at WARN neither the INFO request line nor START/END/REPORT', () => {
    const quiet = flatTemplate(appFor({ logLevel: 'WARN' }).stack);
    for (const [template, level, system] of [
      [untraced, 'INFO', 'INFO'],
      [quiet, 'WARN', 'WARN'],
    ] as const) {
      for (const [id, fn] of functions(template)) {
        expect(fn.Properties.Environment.Variables.LOG_LEVEL, id).toBe(level);
        expect(fn.Properties.LoggingConfig, id).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: level, SystemLogLevel: system });
      }
    }
  });

  it('keeps its logs for the configured days, as the API’s access logs', () => {
    // CDK's BucketDeployment function logs to one group of the web app (lib/stack/web-app.ts), with the same retention.
    const groups = Object.values(resourcesOf(untraced, 'AWS::Logs::LogGroup'));
    const deploymentLogs = Object.keys(resourcesOf(untraced, 'AWS::Logs::LogGroup')).filter((id) => id.startsWith('WebAppDeploymentLogs'));
    expect(deploymentLogs).toHaveLength(1);
    expect(groups.length).toBe(functions(untraced).length + 2);
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(testEnvironment.logRetentionDays);
  });
});

describe('the settings', () => {
  it('refuses a namespace that is not one, a tracing that is not a boolean, an alarm email that is not an address', () => {
    expect(() => appFor({ metricsNamespace: 'AWS/Lambda' })).toThrow(/metricsNamespace/);
    expect(() => appFor({ metricsNamespace: 'has space' })).toThrow(/metricsNamespace/);
    expect(() => appFor({ tracing: 'yes' })).toThrow(/tracing must be true or false/);
    expect(() => appFor({ alarmEndpoint: 'nobody' })).toThrow(/alarmEndpoint must be an email address or an https URL/);
    expect(() => appFor({ alarmEndpoint: 'http://hooks.example.com/x' })).toThrow(/alarmEndpoint must be an email address or an https URL/);
    expect(() => appFor({ alarmEmail: 'oncall@example.com' })).toThrow(/unknown settings: alarmEmail/);
    expect(() => appFor({ logLevel: 'LOUD' })).toThrow(/logLevel must be one of DEBUG, INFO, WARN, ERROR/);
    expect(() => appFor({ dashboard: 'yes' })).toThrow(/dashboard must be true or false/);
    expect(() => appFor({ reserveConcurrency: 1 })).toThrow(/reserveConcurrency must be true or false/);
  });
});
