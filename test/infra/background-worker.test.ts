import { describe, expect, it } from 'vitest';
import { sweepIndex } from '#core/items/task';
import { dynamodbActionsOf, s3ActionsOf, sweeperFunction, workerFunction } from '#functions/routes';
import { reservedConcurrency, streamDelivery, sweeping } from '#functions/worker/delivery';
import { FILTER_PATTERN_QUOTA, streamFilters } from '#functions/worker/filters';
import { bucketDefinition } from '#lib/bucket';
import { buildApp, projectContext } from '#lib/stack/app';
import { ITERATOR_AGE_ALARM_MS } from '#lib/stack/background-worker';
import { flatTemplate } from '#test/support/stack';

type Resource = { Type: string; Properties: Record<string, any> };
// The committed production environment of cdk.json; bundling skipped (the template is the subject).
const { stack } = buildApp({ context: { ...projectContext(), 'aws:cdk:bundling-stacks': [], env: 'prod' } });
const template = flatTemplate(stack);
const resources = (type: string) => template.findResources(type) as Record<string, Resource>;
const idOf = (type: string, prefix: string): string => {
  const ids = Object.keys(resources(type)).filter((id) => id.startsWith(prefix));
  expect(ids, `${type} ${prefix}`).toHaveLength(1);
  return ids[0]!;
};
const workerId = () => idOf('AWS::Lambda::Function', 'WorkerFunction');
const sweeperId = () => idOf('AWS::Lambda::Function', 'WorkerSweeper');
const tableId = () => idOf('AWS::DynamoDB::Table', 'Table');
const mapping = () => Object.values(resources('AWS::Lambda::EventSourceMapping'))[0]!.Properties;
const statementsOf = (rolePrefix: string) => {
  const roleId = idOf('AWS::IAM::Role', rolePrefix);
  return Object.values(resources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
};
/** The alarm on one function's `metricName` (the stack's alarm on all functions' Errors has no dimension). */
const alarmOn = (metricName: string) => {
  const alarms = Object.values(resources('AWS::CloudWatch::Alarm')).filter(
    (a) => a.Properties.MetricName === metricName && a.Properties.Dimensions !== undefined,
  );
  expect(alarms, metricName).toHaveLength(1);
  return alarms[0]!.Properties;
};

describe('the stream mapping', () => {
  it('retries a failing batch from its first failed record, bisecting, within the budget of functions/worker/delivery.ts', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    expect(mapping()).toMatchObject({
      FunctionName: { Ref: workerId() },
      EventSourceArn: { 'Fn::GetAtt': [tableId(), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: streamDelivery.batchSize,
      ParallelizationFactor: streamDelivery.parallelizationFactor,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: streamDelivery.retryAttempts,
      MaximumRecordAgeInSeconds: streamDelivery.maxRecordAgeSeconds,
    });
    // A finite budget, and an age inside Lambda's range and the stream's 24 hours.
    expect(streamDelivery.retryAttempts).toBeGreaterThan(7); // a batch of 100 is bisected to one record in 7
    expect(streamDelivery.maxRecordAgeSeconds).toBeGreaterThanOrEqual(60);
    expect(streamDelivery.maxRecordAgeSeconds).toBeLessThan(24 * 3_600);
    // The sweeper has taken the work over well before a record is given up on for its age.
    expect(sweeping.graceSeconds + sweeping.intervalMinutes * 60).toBeLessThan(streamDelivery.maxRecordAgeSeconds);
  });

  it('sends what it gives up on to the failure queue, which an alarm watches', () => {
    const queueId = idOf('AWS::SQS::Queue', 'WorkerFailedRecords');
    expect(mapping().DestinationConfig.OnFailure.Destination).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    expect(alarmOn('ApproximateNumberOfMessagesVisible')).toMatchObject({
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Threshold: 1,
    });
  });

  it('has no more filter patterns than the default quota of 5, and the ones the local feeder applies', () => {
    const patterns = mapping().FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern));
    expect(patterns.length).toBeLessThanOrEqual(FILTER_PATTERN_QUOTA);
    expect(FILTER_PATTERN_QUOTA).toBe(5);
    expect(patterns).toEqual(JSON.parse(JSON.stringify(streamFilters)));
  });

  it('alarms when the worker falls behind the stream (its IteratorAge)', () => {
    expect(alarmOn('IteratorAge')).toMatchObject({
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: workerId() } }],
      Statistic: 'Maximum',
      Threshold: ITERATOR_AGE_ALARM_MS,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });
});

describe('reserved concurrency', () => {
  it('is none unless the environment asks (reserveConcurrency): an account needs a limit of 100 + the reservation for it', () => {
    const { stack: dev } = buildApp({ context: { ...projectContext(), 'aws:cdk:bundling-stacks': [], env: 'dev' } });
    const functions = Object.entries(flatTemplate(dev).findResources('AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(0);
    for (const [id, fn] of functions) expect(fn.Properties.ReservedConcurrentExecutions, id).toBeUndefined();
  });

  it('reserves the worker’s and the sweeper’s where the environment asks (prod)', () => {
    const functions = resources('AWS::Lambda::Function');
    expect(functions[workerId()]!.Properties.ReservedConcurrentExecutions).toBe(reservedConcurrency.worker);
    expect(functions[sweeperId()]!.Properties.ReservedConcurrentExecutions).toBe(reservedConcurrency.sweeper);
    // Every batch a shard may run at once, for two shards.
    expect(reservedConcurrency.worker).toBeGreaterThanOrEqual(2 * streamDelivery.parallelizationFactor);
  });
});

describe('the sweeper', () => {
  it('is run by a schedule every few minutes', () => {
    const rules = Object.values(resources('AWS::Events::Rule')).filter((rule) => rule.Properties.ScheduleExpression !== undefined);
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties).toMatchObject({
      ScheduleExpression: `rate(${sweeping.intervalMinutes} minutes)`,
      State: 'ENABLED',
      Targets: [{ Arn: { 'Fn::GetAtt': [sweeperId(), 'Arn'] } }],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [sweeperId(), 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
    const sweeper = resources('AWS::Lambda::Function')[sweeperId()]!.Properties;
    expect(sweeper.Timeout).toBeGreaterThan(sweeping.budgetSeconds);
    expect(sweeper.Timeout).toBeLessThanOrEqual(sweeping.intervalMinutes * 60);
    // No retry of a failed sweep (the next one is), no pile of sweeps queued behind a long one.
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: sweeperId() },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: sweeping.intervalMinutes * 60,
    });
    expect(alarmOn('Errors')).toMatchObject({ Dimensions: [{ Name: 'FunctionName', Value: { Ref: sweeperId() } }] });
  });

  it('may do exactly what it declares: dynamodbActionsOf(sweeperFunction) on the table, and Query on its index', () => {
    const statements = statementsOf('WorkerSweeperRole').filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    const table = { 'Fn::GetAtt': [tableId(), 'Arn'] };
    const onTable = statements.filter((s) => JSON.stringify(s.Resource) === JSON.stringify(table));
    expect(onTable.flatMap((s) => [s.Action].flat()).sort()).toEqual(dynamodbActionsOf(sweeperFunction));
    const others = statements.filter((s) => !onTable.includes(s));
    expect(others).toEqual([
      { Effect: 'Allow', Action: 'dynamodb:Query', Resource: { 'Fn::Join': ['', [table, `/index/${sweepIndex.name}`]] } },
    ]);
    for (const action of others.flatMap((s) => [s.Action].flat())) expect(dynamodbActionsOf(sweeperFunction)).toContain(action);
    expect(sweeperFunction.dynamodb).toEqual(workerFunction.dynamodb); // the worker's code, the worker's needs
  });

  it('reads the sweep index: the table has it, sparse and keys only', () => {
    const table = resources('AWS::DynamoDB::Table')[tableId()]!.Properties;
    expect(table.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: sweepIndex.name,
        KeySchema: [
          { AttributeName: sweepIndex.partitionKey, KeyType: 'HASH' },
          { AttributeName: sweepIndex.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
    expect(table.AttributeDefinitions).toEqual(
      expect.arrayContaining([
        { AttributeName: sweepIndex.partitionKey, AttributeType: 'S' },
        { AttributeName: sweepIndex.sortKey, AttributeType: 'S' },
      ]),
    );
  });
});

describe('removing file bytes', () => {
  // The file bucket: the bucket of the Files construct that is not its access-log bucket (lib/stack/file-bucket.ts; the
  // web app's bucket is another construct's).
  const filesId = () => {
    const ids = Object.keys(resources('AWS::S3::Bucket')).filter(
      (id) => id.startsWith('Files') && !id.startsWith(idOf('AWS::S3::Bucket', 'FilesAccessLogs')),
    );
    expect(ids).toHaveLength(1);
    return ids[0]!;
  };
  const s3Statements = (rolePrefix: string) => statementsOf(rolePrefix).filter((s) => JSON.stringify(s.Action).includes('"s3:'));

  it.each([
    ['worker', 'WorkerFunctionRole', workerFunction],
    ['sweeper', 'WorkerSweeperRole', sweeperFunction],
  ] as const)(
    'the %s may do exactly what it declares: list, delete and abort (the sweeper also finish) under the file prefix only',
    (_, role, fn) => {
      const bucketArn = { 'Fn::GetAtt': [filesId(), 'Arn'] };
      // What removing bytes needs; the sweeper, which also finishes lost uploads, needs what finishing needs too.
      expect(s3ActionsOf(fn)).toEqual(
        expect.arrayContaining(['s3:AbortMultipartUpload', 's3:DeleteObject', 's3:ListBucket', 's3:ListBucketMultipartUploads']),
      );
      expect(s3Statements(role)).toEqual([
        {
          Action: s3ActionsOf(fn).filter((a) => !a.startsWith('s3:ListBucket')),
          Effect: 'Allow',
          Resource: { 'Fn::Join': ['', [bucketArn, `/${bucketDefinition.keyPrefix}*`]] },
        },
        {
          Action: 's3:ListBucket',
          Effect: 'Allow',
          Resource: bucketArn,
          Condition: { StringLike: { 's3:prefix': [`${bucketDefinition.keyPrefix}*`] } },
        },
        // IAM has no prefix condition for listing uploads in progress: the bucket, this one action.
        { Action: 's3:ListBucketMultipartUploads', Effect: 'Allow', Resource: bucketArn },
      ]);
    },
  );

  it('tells both the bucket’s name', () => {
    const functions = resources('AWS::Lambda::Function');
    for (const id of [workerId(), sweeperId()])
      expect(functions[id]!.Properties.Environment.Variables.BUCKET_NAME).toEqual({ Ref: filesId() });
  });
});
