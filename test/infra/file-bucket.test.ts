/**
 * The file bucket in the synthesized template (lib/stack/file-bucket.ts): private, TLS only,
 * encrypted, no ACLs, CORS for the environment's origins, incomplete multipart uploads aborted,
 * versioning off, access logs; and a function gets exactly the S3 actions its route declares, on
 * the file prefix, with the bucket's name (one is planted in this file's own process, with actions
 * of its own); a route that declares none gets neither. Synthesizing runs cdk-nag: an unacknowledged finding throws.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { type Route, routes, s3ActionsOf } from '#functions/routes';
import { bucketDefinition } from '#lib/bucket';
import { buildApp } from '#lib/stack/app';
import { flatTemplate, testContext, testTemplate } from '#test/support/stack';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

const planted: Route = {
  name: 'PlantedFileRoute',
  method: 'GET',
  path: '/planted/{id}',
  handler: 'documents/get-document',
  dynamodb: ['dynamodb:BatchGetItem'],
  s3: ['s3:PutObject', 's3:GetObject', 's3:ListBucket'],
};
/**
 * The template with `planted` in the route table, synthesized here and not shared: the template
 * tests share one module cache (vitest.config.ts: TEMPLATES), so the route table is taken back
 * at once and the shared templates (`testTemplate`) never see the planted route.
 */
const template = (() => {
  (routes as Route[]).push(planted);
  try {
    return flatTemplate(buildApp({ context: testContext() }).stack);
  } finally {
    (routes as Route[]).splice(routes.indexOf(planted), 1);
  }
})();
/** The other settings these tests look at, in one template: each synth costs seconds. */
const configured = testTemplate({ corsOrigins: ['https://app.example.com'], destroyable: true });
/** The file bucket and its access-log bucket (the web app's bucket is lib/stack/web-app.ts's: test/infra/web-app-stack.test.ts). */
const fileBuckets = (t: typeof template) =>
  Object.fromEntries(
    Object.entries(t.findResources('AWS::S3::Bucket') as Record<string, Resource>).filter(([id]) => id.startsWith('Files')),
  );
const buckets = () => fileBuckets(template);
const idOf = (type: string, prefix: string): string => {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  expect(ids, `${type} ${prefix}`).toHaveLength(1);
  return ids[0]!;
};
const logsId = idOf('AWS::S3::Bucket', 'FilesAccessLogs');
// CDK drops the repeated construct id: the bucket `Files` of the construct `Files` is `Files<hash>`.
const filesId = Object.keys(buckets()).find((id) => id !== logsId)!;

function statementsOf(name: string): { Action: string | string[]; Resource: unknown; Condition?: unknown }[] {
  const roleId = idOf('AWS::IAM::Role', `${name}Role`);
  return Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>)
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}
const s3StatementsOf = (name: string) => statementsOf(name).filter((s) => JSON.stringify(s.Action).includes('"s3:'));

describe('the file bucket', () => {
  it('is private, encrypted at rest, without ACLs or versioning, and logs its access to a bucket of its own', () => {
    expect(Object.keys(buckets())).toHaveLength(2);
    for (const id of [filesId, logsId]) {
      expect(buckets()[id]!.Properties, id).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      });
      expect(buckets()[id]!.Properties.VersioningConfiguration, id).toBeUndefined();
    }
    expect(buckets()[filesId]!.Properties.LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: logsId },
      LogFilePrefix: 'files/',
    });
    expect(buckets()[logsId]!.Properties.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({ ExpirationInDays: 30, Status: 'Enabled' }),
    ]);
  });

  it('refuses plain HTTP and TLS before 1.2', () => {
    const policy = Object.values(template.findResources('AWS::S3::BucketPolicy') as Record<string, Resource>).find(
      (p) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: filesId }),
    )!;
    expect(policy.Properties.PolicyDocument.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } } }),
      ]),
    );
  });

  it('aborts incomplete multipart uploads after a day', () => {
    expect(buckets()[filesId]!.Properties.LifecycleConfiguration.Rules).toEqual([
      {
        Id: 'AbortIncompleteMultipartUploads',
        Status: 'Enabled',
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: bucketDefinition.abortIncompleteMultipartUploadDays },
      },
    ]);
    expect(bucketDefinition.abortIncompleteMultipartUploadDays).toBe(1);
  });

  it('answers CORS only for the environment’s origins and the web app’s, for a browser’s PUT, GET and HEAD with a presigned URL', () => {
    // Without configured origins, the web app's alone (its value: test/infra/web-app-stack.test.ts).
    expect(buckets()[filesId]!.Properties.CorsConfiguration.CorsRules[0].AllowedOrigins).toHaveLength(1);
    configured.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: Match.anyValue(),
      CorsConfiguration: {
        CorsRules: [
          {
            AllowedOrigins: ['https://app.example.com', Match.objectLike({ 'Fn::Join': Match.anyValue() })],
            AllowedMethods: ['GET', 'HEAD', 'PUT'],
            AllowedHeaders: ['content-type', 'range', 'link-password'],
            ExposedHeaders: ['etag', 'content-range', 'accept-ranges', 'content-disposition'],
            MaxAge: 3600,
          },
        ],
      },
    });
  });

  it('is kept when the stack goes, unless the environment is destroyable', () => {
    expect(buckets()[filesId]!.DeletionPolicy).toBe('RetainExceptOnCreate');
    const destroyable = fileBuckets(configured);
    expect(Object.keys(destroyable)).toHaveLength(2);
    for (const bucket of Object.values(destroyable)) expect(bucket.DeletionPolicy).toBe('Delete');
  });

  it('is emptied before it is deleted, in a destroyable environment only: CloudFormation cannot delete a bucket that holds objects', () => {
    const emptied = (t: typeof template) =>
      Object.values(t.findResources('Custom::S3AutoDeleteObjects') as Record<string, Resource>).map(
        (resource) => (resource.Properties.BucketName as { Ref: string }).Ref,
      );
    expect(emptied(template)).toEqual([]);
    const destroyable = Object.keys(configured.findResources('AWS::S3::Bucket'));
    expect(emptied(configured).sort()).toEqual(destroyable.sort());
    // The emptying function first refuses new objects (the log delivery's too), then deletes them; the bucket
    // policy lets it (CDK's auto-delete-objects provider).
    for (const id of destroyable) {
      configured.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Action: Match.arrayWith(['s3:DeleteObject*', 's3:PutBucketPolicy']), Effect: 'Allow' }),
          ]),
        },
      });
    }
  });
});

describe('the URL signing role', () => {
  const signerId = () => idOf('AWS::IAM::Role', 'FilesUrlSigner');
  const variablesOf = (name: string) =>
    (template.findResources('AWS::Lambda::Function') as Record<string, Resource>)[idOf('AWS::Lambda::Function', `${name}Function`)]!
      .Properties.Environment.Variables as Record<string, unknown>;

  it('lives an hour at most, may only get and put objects under the file prefix, and is trusted by the account alone', () => {
    const role = (template.findResources('AWS::IAM::Role') as Record<string, Resource>)[signerId()]!;
    expect(role.Properties.MaxSessionDuration).toBe(3600);
    expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).toContain(':root');
    const statements = Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>)
      .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: signerId() }]))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
    expect(statements).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject'],
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [filesId, 'Arn'] }, `/${bucketDefinition.keyPrefix}*`]] },
      }),
    ]);
  });

  it('is assumed by exactly the routes that hand out presigned URLs, which are told its ARN', () => {
    for (const route of routes.filter((r) => r.name !== planted.name)) {
      const assumes = statementsOf(route.name).some(
        (statement) => statement.Action === 'sts:AssumeRole' && JSON.stringify(statement.Resource).includes(signerId()),
      );
      const told = variablesOf(route.name).URL_SIGNING_ROLE_ARN;
      if (route.presigns) {
        expect(assumes, route.name).toBe(true);
        expect(told, route.name).toEqual({ 'Fn::GetAtt': [signerId(), 'Arn'] });
      } else {
        expect(assumes, route.name).toBe(false);
        expect(told, route.name).toBeUndefined();
      }
    }
    expect(routes.filter((route) => route.presigns).map((route) => route.name)).toEqual(
      expect.arrayContaining(['StartUpload', 'CreatePartUrls', 'GetDocumentContent', 'GetRevisionContent']),
    );
  });
});

describe('its Object Created events', () => {
  it('go to EventBridge, where a rule sends those under the file prefix to the upload finaliser, retried twice', () => {
    expect(buckets()[filesId]!.Properties.NotificationConfiguration).toEqual({ EventBridgeConfiguration: { EventBridgeEnabled: true } });
    const rules = Object.values(template.findResources('AWS::Events::Rule') as Record<string, Resource>).filter((rule) =>
      (JSON.stringify(rule.Properties.EventPattern) ?? '').includes('Object Created'),
    );
    expect(rules).toHaveLength(1);
    const [rule] = rules;
    expect(rule!.Properties.EventPattern).toEqual({
      source: ['aws.s3'],
      'detail-type': ['Object Created'],
      detail: { bucket: { name: [{ Ref: filesId }] }, object: { key: [{ prefix: bucketDefinition.keyPrefix }] } },
    });
    const finaliserId = idOf('AWS::Lambda::Function', 'FinaliserFunction');
    expect(rule!.Properties.Targets).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [finaliserId, 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 },
      }),
    ]);
  });
});

describe('what a function may do in it', () => {
  it('is exactly the S3 actions its route declares, on the objects under the file prefix, and ListBucket for that prefix only', () => {
    expect(s3StatementsOf(planted.name)).toEqual([
      {
        Action: ['s3:GetObject', 's3:PutObject'],
        Effect: 'Allow',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [filesId, 'Arn'] }, `/${bucketDefinition.keyPrefix}*`]] },
      },
      {
        Action: 's3:ListBucket',
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [filesId, 'Arn'] },
        Condition: { StringLike: { 's3:prefix': [`${bucketDefinition.keyPrefix}*`] } },
      },
    ]);
  });

  it('is, for every route that declares S3 actions, exactly those on the file prefix, with the bucket named', () => {
    const functions = template.findResources('AWS::Lambda::Function') as Record<string, Resource>;
    const declaring = routes.filter((r) => r !== planted && s3ActionsOf(r).length > 0);
    expect(declaring.map((r) => r.name)).toEqual(expect.arrayContaining(['StartUpload', 'CompleteUpload', 'CancelUpload']));
    for (const route of declaring) {
      const objectActions = s3ActionsOf(route).filter((a) => a !== 's3:ListBucket');
      const granted = s3StatementsOf(route.name).flatMap((statement) => [statement.Action].flat());
      expect([...granted].sort(), route.name).toEqual(objectActions);
      const id = idOf('AWS::Lambda::Function', `${route.name}Function`);
      expect(functions[id]!.Properties.Environment.Variables.BUCKET_NAME, route.name).toEqual({ Ref: filesId });
    }
  });

  it('is nothing for a route that declares none, which is not told the bucket’s name either', () => {
    const functions = template.findResources('AWS::Lambda::Function') as Record<string, Resource>;
    const plantedId = idOf('AWS::Lambda::Function', `${planted.name}Function`);
    expect(functions[plantedId]!.Properties.Environment.Variables.BUCKET_NAME).toEqual({ Ref: filesId });
    for (const route of routes.filter((r) => r !== planted && s3ActionsOf(r).length === 0)) {
      expect(s3StatementsOf(route.name), route.name).toEqual([]);
      const id = idOf('AWS::Lambda::Function', `${route.name}Function`);
      expect(functions[id]!.Properties.Environment.Variables.BUCKET_NAME, route.name).toBeUndefined();
    }
  });
});
