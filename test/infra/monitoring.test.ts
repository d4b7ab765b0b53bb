/**
 * Operations in the synthesized template (lib/stack/monitoring.ts, route-function.ts): the
 * alarm topic and its subscriber from the deployment config, every alarm with its threshold,
 * its reason and its actions, the dashboard, the metrics namespace and the tracing setting on
 * every function, log retention, and the uploads' alarms once the files feature passes its
 * bucket. Synthesizing runs cdk-nag: an unacknowledged finding throws. Bundling is skipped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { SERVICE_NAME, serviceMetrics } from '#core/metrics';
import { fallbackRoute, routes } from '#functions/routes';
import { projectRoot } from '#lib/bundling';
import { buildApp } from '#lib/stack/app';
import { FILES_METRICS_FILTER, type FileBucket } from '#lib/stack/file-bucket';
import { alarmThresholds, watchedTableOperations } from '#lib/stack/monitoring';
import { testContext, testEnvironment } from '#test/support/stack';

type Resource = { Type: string; Properties: Record<string, any> };

const appFor = (settings: Record<string, unknown>) => buildApp({ context: testContext(settings) });

const NAMESPACE = 'Documents/Test';
const traced = Template.fromStack(appFor({ metricsNamespace: NAMESPACE, tracing: true, alarmEmail: 'oncall@example.com' }).stack);
const untraced = Template.fromStack(appFor({}).stack);

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
    traced.hasResourceProperties('AWS::SNS::TopicPolicy', { Topics: [{ Ref: id }] });
  });

  it('has no subscriber when the environment names none', () => {
    topicId(untraced);
    untraced.resourceCountIs('AWS::SNS::Subscription', 0);
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

describe('the alarms', () => {
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

  it('count: the API, one per function (routes, fallback, worker), the table twice, the worker three, the uploads four', () => {
    // The uploads: the bucket's 4xx and 5xx, failed uploads, and the finaliser function's errors.
    expect(Object.keys(alarms(traced))).toHaveLength(1 + routes.length + 2 + 2 + 3 + 4);
  });

  it('API 5xx: more than 1% of at least 20 requests, in two 5-minute periods running', () => {
    const api = alarm(traced, 'MonitoringApiServerErrorsAlarm');
    expect(expressionOf(api)).toBe(`IF(requests >= ${alarmThresholds.apiMinimumRequests}, 100 * errors / requests, 0)`);
    expect(api).toMatchObject({ Threshold: 1, EvaluationPeriods: 2, ComparisonOperator: 'GreaterThanThreshold' });
    const names = metricsOf(api).map((m: { Namespace: string; MetricName: string }) => `${m.Namespace} ${m.MetricName}`);
    expect(names.sort()).toEqual(['AWS/ApiGateway 5xx', 'AWS/ApiGateway Count']);
  });

  it('each function: errors + throttles, 3 in 5 minutes, on its own function', () => {
    const functionIds = Object.keys(resourcesOf(traced, 'AWS::Lambda::Function'));
    for (const name of [...routes.map((route) => route.name), fallbackRoute.name, 'Worker']) {
      const properties = alarm(traced, `Monitoring${name}FailuresAlarm`);
      expect(expressionOf(properties), name).toBe('FILL(errors, 0) + FILL(throttles, 0)');
      expect(properties).toMatchObject({ Threshold: alarmThresholds.functionFailures, EvaluationPeriods: 1 });
      const watched = metricsOf(properties);
      expect(watched.map((m: { MetricName: string }) => m.MetricName).sort(), name).toEqual(['Errors', 'Throttles']);
      const target = watched[0].Dimensions[0].Value.Ref as string;
      expect(functionIds, name).toContain(target);
      expect(target.startsWith(name === 'Worker' ? 'WorkerFunction' : `${name}Function`), `${name} → ${target}`).toBe(true);
    }
  });

  it('DynamoDB: throttled requests and system errors summed over the operations the service uses, a missing one counting 0', () => {
    for (const [prefix, metricName, threshold] of [
      ['MonitoringTableThrottlesAlarm', 'ThrottledRequests', alarmThresholds.tableThrottles],
      ['MonitoringTableSystemErrorsAlarm', 'SystemErrors', alarmThresholds.tableSystemErrors],
    ] as const) {
      const properties = alarm(traced, prefix);
      expect(expressionOf(properties)).toMatch(/^SUM\(FILL\(METRICS\("\w+"\), 0\)\)$/);
      expect(properties.Threshold).toBe(threshold);
      const watched = metricsOf(properties);
      expect(watched.every((m: { MetricName: string }) => m.MetricName === metricName)).toBe(true);
      const operations = watched.map(
        (m: { Dimensions: { Name: string; Value: string }[] }) => m.Dimensions.find((d) => d.Name === 'Operation')!.Value,
      );
      expect(operations.sort()).toEqual([...watchedTableOperations].sort());
      expect(operations.length).toBeLessThanOrEqual(10); // CloudWatch's limit for a metric-math alarm
    }
  });

  it('the worker: failed records, iterator age and failing sweeps notify the topic too', () => {
    for (const prefix of ['WorkerFailedRecordsAlarm', 'WorkerIteratorAgeAlarm', 'WorkerSweeperErrorsAlarm']) alarm(traced, prefix);
  });
});

describe('the uploads: the file bucket (lib/stack/file-bucket.ts)', () => {
  it('adds the S3 4xx rate, S3 5xx and failed-upload alarms, on the bucket’s request-metrics filter and the service namespace', () => {
    const { stack } = appFor({ metricsNamespace: NAMESPACE });
    const template = Template.fromStack(stack);
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
    expect(alarm(template, 'MonitoringUploadsFailedAlarm')).toMatchObject({
      Namespace: NAMESPACE,
      MetricName: serviceMetrics.uploadsFailed.name,
      Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
      Threshold: alarmThresholds.uploadsFailed,
    });
  });
});

describe('the dashboard', () => {
  const body = () => {
    const dashboards = Object.values(resourcesOf(traced, 'AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    return JSON.stringify(dashboards[0]!.Properties.DashboardBody);
  };

  it('shows answers, duration and cold starts per route from the service’s namespace, one line per route', () => {
    for (const metric of [
      serviceMetrics.answered2xx,
      serviceMetrics.answered5xx,
      serviceMetrics.handlerDuration,
      serviceMetrics.coldStart,
    ]) {
      expect(body()).toContain(`MetricName=(`);
      expect(body()).toContain(`\\\\\\"${metric.name}\\\\\\"`);
    }
    expect(body()).toContain(`SEARCH('{\\\\\\"${NAMESPACE}\\\\\\",route,service}`);
  });

  it('shows the API, errors and throttles, the worker’s lag and failures, business events and uploads, and every alarm', () => {
    for (const title of [
      'API: requests, 4xx, 5xx',
      'API latency',
      'Errors and throttles',
      'Worker: lag',
      'Worker: tasks and failures',
      'Created',
      'Uploads',
      'Alarms',
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
  const functions = (template: Template) => Object.entries(resourcesOf(template, 'AWS::Lambda::Function'));

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

  it('keeps its logs for the configured days, as the API’s access logs', () => {
    const groups = Object.values(resourcesOf(untraced, 'AWS::Logs::LogGroup'));
    expect(groups.length).toBe(functions(untraced).length + 1);
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(testEnvironment.logRetentionDays);
  });
});

describe('the settings', () => {
  it('refuses a namespace that is not one, a tracing that is not a boolean, an alarm email that is not an address', () => {
    expect(() => appFor({ metricsNamespace: 'AWS/Lambda' })).toThrow(/metricsNamespace/);
    expect(() => appFor({ metricsNamespace: 'has space' })).toThrow(/metricsNamespace/);
    expect(() => appFor({ tracing: 'yes' })).toThrow(/tracing must be true or false/);
    expect(() => appFor({ alarmEmail: 'nobody' })).toThrow(/alarmEmail must be an email address/);
  });
});
