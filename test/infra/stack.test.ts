/**
 * The synthesized CloudFormation template, checked against the route table: one function per
 * route, each route bound to its own function and to the JWT authorizer, least-privilege IAM,
 * the table's settings, stage throttling, logs and CORS, and the environments of cdk.json that
 * synth requires. Bundling is skipped here (the template is the subject);
 * test/infra/bundles.test.ts and synth.test.ts cover the code.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  dynamodbActionsOf,
  fallbackRoute,
  finaliserFunction,
  routes,
  signInRoutes,
  sweeperFunction,
  workerFunction,
} from '#functions/routes';
import { streamDelivery } from '#functions/worker/delivery';
import { streamFilters } from '#functions/worker/filters';
import { memorySizeOf, timeoutSeconds } from '#lib/function-settings';
import { buildApp, projectContext } from '#lib/stack/app';
import { tableDefinition } from '#lib/table';
import { flatTemplate, testContext, testEnvironment } from '#test/support/stack';

type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, unknown>; DeletionPolicy?: string };

/** The test environment's context, with the asset metadata SAM reads. */
const contextFor = (settings: Record<string, unknown> = {}, context: Record<string, unknown> = {}) =>
  testContext(settings, { 'aws:cdk:enable-asset-metadata': true, ...context });

/** The template for the test environment with `settings` changed (and other context, if given). */
function synth(settings: Record<string, unknown> = {}, context: Record<string, unknown> = {}): Template {
  return flatTemplate(buildApp({ context: contextFor(settings, context) }).stack);
}

const template = synth();
/** CDK's own BucketDeployment function and its role (the web app's files: lib/stack/web-app.ts, its findings acknowledged there). */
const isCdkBucketDeployment = (id: string) => id.startsWith('CustomCDKBucketDeployment');
const resources = (type: string): Record<string, Resource> =>
  Object.fromEntries(Object.entries(template.findResources(type) as Record<string, Resource>).filter(([id]) => !isCdkBucketDeployment(id)));
/** Logical ids start with the construct id, which is the route's name. */
const logicalIdOf = (type: string, prefix: string): string => {
  const ids = Object.keys(resources(type)).filter((id) => id.startsWith(prefix));
  expect(ids, `${type} for ${prefix}`).toHaveLength(1);
  return ids[0]!;
};
const functionIdOf = (name: string) => logicalIdOf('AWS::Lambda::Function', `${name}Function`);

function policyStatementsOf(routeName: string): { Action: string | string[]; Resource: unknown }[] {
  const roleId = logicalIdOf('AWS::IAM::Role', `${routeName}Role`);
  return Object.values(resources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}
const actionsOf = (routeName: string): string[] =>
  policyStatementsOf(routeName).flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

describe('functions', () => {
  it('makes one function per route table entry, plus the $default fallback, the background worker and its sweeper, and the upload finaliser', () => {
    const functions = resources('AWS::Lambda::Function');
    // And the search index's two (lib/stack/search-index.ts): its migrations and its rebuild.
    // And the web app's sign-in routes (functions/auth/), with the stack's own user pool.
    expect(Object.keys(functions)).toHaveLength(routes.length + signInRoutes.length + 6);
    for (const route of [...routes, fallbackRoute, workerFunction, finaliserFunction]) functionIdOf(route.name);
    // The sweeper's construct is inside the worker's (test/infra/background-worker.test.ts).
    logicalIdOf('AWS::Lambda::Function', `Worker${sweeperFunction.name}Function`);
  });

  it('runs every function on arm64 Node.js 22 with the chosen memory and timeout (the worker runs longer)', () => {
    const workerId = functionIdOf(workerFunction.name);
    const functions = resources('AWS::Lambda::Function');
    for (const route of [...routes, fallbackRoute, workerFunction]) {
      const id = functionIdOf(route.name);
      expect(functions[id]!.Properties, route.name).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: memorySizeOf(route.name),
        Timeout: id === workerId ? 120 : timeoutSeconds,
        Handler: 'index.handler',
      });
    }
  });

  it('gives TABLE_NAME to exactly the functions that touch the table, and the paging key only to the routes that page', () => {
    for (const route of [...routes, fallbackRoute]) {
      const variables = resources('AWS::Lambda::Function')[functionIdOf(route.name)]!.Properties.Environment?.Variables ?? {};
      expect('TABLE_NAME' in variables, route.name).toBe(dynamodbActionsOf(route).length > 0);
      expect('PAGING_TOKEN_SECRET_ARN' in variables, route.name).toBe('pages' in route && route.pages === true);
    }
  });

  it('hands the routes that page the paging secret’s ARN and the right to read it, never its value; nothing else may read it', () => {
    const secretId = logicalIdOf('AWS::SecretsManager::Secret', 'PagingTokenSecret');
    expect(routes.filter((r) => r.pages).length).toBeGreaterThan(0);
    for (const route of [...routes, fallbackRoute, workerFunction]) {
      const pages = 'pages' in route && route.pages === true;
      const variables = functionOf(functionIdOf(route.name)).Environment?.Variables ?? {};
      expect(variables.PAGING_TOKEN_SECRET, route.name).toBeUndefined();
      // The worker's role is inside its construct (WorkerFunctionRole…).
      const roleOf = route === workerFunction ? 'WorkerFunction' : route.name;
      // The search index's own secret (the Data API's credentials) is another matter: test/infra/search-index.test.ts.
      const reads = policyStatementsOf(roleOf).filter(
        (s) => JSON.stringify(s.Action).includes('secretsmanager:') && JSON.stringify(s.Resource).includes(secretId),
      );
      if (pages) {
        expect(variables.PAGING_TOKEN_SECRET_ARN, route.name).toEqual({ Ref: secretId });
        // IAM merges grants of the same actions: the search route's statement also names the search index's secret.
        const searchSecret =
          route.search === true
            ? [{ Ref: logicalIdOf('AWS::SecretsManager::SecretTargetAttachment', 'SearchIndexClusterSecretAttachment') }]
            : [];
        expect(reads, route.name).toEqual([
          {
            Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
            Effect: 'Allow',
            Resource: searchSecret.length ? [{ Ref: secretId }, ...searchSecret] : { Ref: secretId },
          },
        ]);
      } else {
        expect(variables.PAGING_TOKEN_SECRET_ARN, route.name).toBeUndefined();
        expect(reads, route.name).toEqual([]);
      }
    }
    // Whatever else the stack has (the sweeper, functions to come): only the paging routes' roles
    // may read it, and the web app's sign-in routes, which derive their cookie key from it.
    const readers = Object.values(resources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.PolicyDocument).includes(secretId))
      .flatMap((policy) => policy.Properties.Roles.map((role: { Ref: string }) => role.Ref))
      .sort();
    expect(readers).toEqual(
      [...routes.filter((r) => r.pages), ...signInRoutes].map((r) => logicalIdOf('AWS::IAM::Role', `${r.name}Role`)).sort(),
    );
    // No dynamic reference resolves the secret's value into the template anywhere (the search
    // cluster's master password is resolved by CloudFormation from its own secret, as RDS needs).
    expect(JSON.stringify(template.toJSON())).not.toContain(`resolve:secretsmanager:",{"Ref":"${secretId}"`);
  });

  it('gives every function its own log group with a retention', () => {
    for (const [id, fn] of Object.entries(resources('AWS::Lambda::Function'))) {
      const logGroupId = fn.Properties.LoggingConfig?.LogGroup?.Ref as string;
      expect(logGroupId, id).toBeTruthy();
      expect(resources('AWS::Logs::LogGroup')[logGroupId]!.Properties.RetentionInDays).toBe(30);
    }
  });
});

describe('least privilege', () => {
  it('grants each function exactly the DynamoDB actions its route declares (and a write route the idempotency record’s), on the table only', () => {
    const tableId = logicalIdOf('AWS::DynamoDB::Table', 'Table');
    for (const route of [...routes, fallbackRoute]) {
      const statements = policyStatementsOf(route.name).filter((s) => JSON.stringify(s.Action).includes('dynamodb:'));
      expect(
        actionsOf(route.name)
          .filter((a) => a.startsWith('dynamodb:'))
          .sort(),
        route.name,
      ).toEqual(dynamodbActionsOf(route));
      for (const statement of statements) expect(statement.Resource).toEqual({ 'Fn::GetAtt': [tableId, 'Arn'] });
    }
  });

  it('never lets a read function write (a share link opened updates only itself: lastUsedAt, its password lock)', () => {
    const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
    const opensLink = (path: string) => path.startsWith('/s/');
    for (const route of routes.filter((r) => r.method === 'GET')) {
      const allowed = opensLink(route.path) ? writes.filter((w) => w !== 'dynamodb:UpdateItem') : writes;
      for (const action of actionsOf(route.name)) expect(allowed, `${route.name} may ${action}`).not.toContain(action);
    }
  });

  it('has no wildcard action anywhere and no managed policies on function roles', () => {
    for (const policy of Object.values(resources('AWS::IAM::Policy'))) {
      for (const statement of policy.Properties.PolicyDocument.Statement) {
        for (const action of [statement.Action].flat()) expect(action).not.toMatch(/\*/);
      }
    }
    for (const role of Object.values(resources('AWS::IAM::Role'))) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('lets each function write only to its own log group', () => {
    for (const route of [...routes, fallbackRoute]) {
      const logGroupId = logicalIdOf('AWS::Logs::LogGroup', `${route.name}Logs`);
      const logs = policyStatementsOf(route.name).filter((s) => JSON.stringify(s.Action).includes('logs:'));
      expect(logs.map((s) => s.Resource)).toEqual([{ 'Fn::GetAtt': [logGroupId, 'Arn'] }]);
    }
  });
});

describe('routes', () => {
  const apiRoutes = () => Object.values(resources('AWS::ApiGatewayV2::Route')).map((r) => r.Properties);
  const integrationTarget = (route: Record<string, any>) => {
    const integrationId = route.Target['Fn::Join'][1][1].Ref as string;
    return resources('AWS::ApiGatewayV2::Integration')[integrationId]!.Properties;
  };

  it('binds every route of the table to its own function, with payload format 2.0', () => {
    for (const route of routes) {
      const found = apiRoutes().filter((r) => r.RouteKey === `${route.method} ${route.path}`);
      expect(found, route.name).toHaveLength(1);
      const integration = integrationTarget(found[0]!);
      expect(integration).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      expect(integration.IntegrationUri).toEqual({ 'Fn::GetAtt': [functionIdOf(route.name), 'Arn'] });
    }
  });

  it('puts the JWT authorizer on every route that is not public, and none on public ones', () => {
    const authorizerId = logicalIdOf('AWS::ApiGatewayV2::Authorizer', 'AuthJwt');
    for (const route of routes) {
      const apiRoute = apiRoutes().find((r) => r.RouteKey === `${route.method} ${route.path}`)!;
      if (route.public) expect(apiRoute.AuthorizationType ?? 'NONE', route.name).toBe('NONE');
      else expect(apiRoute, route.name).toMatchObject({ AuthorizationType: 'JWT', AuthorizerId: { Ref: authorizerId } });
    }
  });

  it('opens exactly these routes without a token: the reference, the two share-link routes and $default', () => {
    // A literal list, not one derived from the route table: a route made public by mistake fails here.
    const open = apiRoutes()
      .filter((r) => (r.AuthorizationType ?? 'NONE') === 'NONE')
      .map((r) => r.RouteKey as string)
      .sort();
    expect(open).toEqual([
      '$default',
      'GET /auth/callback',
      'GET /auth/login',
      'GET /auth/logout',
      'GET /docs',
      'GET /docs/{asset}',
      'GET /openapi.json',
      'GET /s/{token}',
      'GET /s/{token}/content',
      'POST /auth/refresh',
    ]);
  });

  it('sends whatever matches no route to the fallback function, without a token', () => {
    const fallback = apiRoutes().find((r) => r.RouteKey === '$default')!;
    expect(fallback.AuthorizationType ?? 'NONE').toBe('NONE');
    expect(integrationTarget(fallback).IntegrationUri).toEqual({ 'Fn::GetAtt': [functionIdOf(fallbackRoute.name), 'Arn'] });
    expect(apiRoutes()).toHaveLength(routes.length + signInRoutes.length + 1);
  });
});

describe('table', () => {
  it('is the single table of lib/table.ts: on demand, point-in-time recovery, protected and retained once made', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        // The sweeper's index only (test/infra/background-worker.test.ts checks it).
        GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => Match.objectLike({ IndexName: index.name })),
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      },
    });
  });

  it('can be made destroyable for a throwaway stack', () => {
    const throwaway = synth({ destroyable: true });
    throwaway.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: { DeletionProtectionEnabled: false, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } },
    });
    const policies = Object.values(throwaway.toJSON().Resources as Record<string, Resource>).map((r) => r.DeletionPolicy);
    expect(policies).not.toContain('Retain');
    expect(policies).not.toContain('RetainExceptOnCreate');
  });
});

describe('retained resources', () => {
  it('are retained only once made: a failed first deploy deletes what it made (RetainExceptOnCreate), never plain Retain', () => {
    const retained = Object.entries(template.toJSON().Resources as Record<string, Resource>).filter(
      ([, r]) => r.DeletionPolicy && r.DeletionPolicy !== 'Delete',
    );
    // The table, the paging secret, the user pool and the log groups at least.
    for (const type of ['AWS::DynamoDB::Table', 'AWS::SecretsManager::Secret', 'AWS::Cognito::UserPool', 'AWS::Logs::LogGroup']) {
      expect(
        retained.some(([, r]) => r.Type === type),
        type,
      ).toBe(true);
    }
    for (const [id, resource] of retained) expect(resource.DeletionPolicy, id).toBe('RetainExceptOnCreate');
  });
});

describe('background worker', () => {
  const workerId = () => functionIdOf(workerFunction.name);
  const mapping = () => Object.values(resources('AWS::Lambda::EventSourceMapping'))[0]!.Properties;

  it('reads the table stream with the filters the local feeder applies, retrying, bisecting, reporting failed records', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    expect(mapping()).toMatchObject({
      FunctionName: { Ref: workerId() },
      EventSourceArn: { 'Fn::GetAtt': [logicalIdOf('AWS::DynamoDB::Table', 'Table'), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: streamDelivery.retryAttempts,
    });
    const patterns = mapping().FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern));
    expect(patterns).toEqual(JSON.parse(JSON.stringify(streamFilters)));
  });

  it('sends what it gives up on to an encrypted queue that an alarm watches', () => {
    const queueId = logicalIdOf('AWS::SQS::Queue', 'WorkerFailedRecords');
    expect(mapping().DestinationConfig.OnFailure.Destination).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Threshold: 1,
    });
  });

  it('may use the table as declared, publish to the bus only, and send to the failure queue only', () => {
    const bus = logicalIdOf('AWS::Events::EventBus', 'WorkerEvents');
    const statements = policyStatementsOf('WorkerFunction');
    const streamActions = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'];
    const onTable = statements.filter(
      (s) => JSON.stringify(s.Resource) === JSON.stringify({ 'Fn::GetAtt': [logicalIdOf('AWS::DynamoDB::Table', 'Table'), 'Arn'] }),
    );
    expect(onTable.flatMap((s) => [s.Action].flat()).sort()).toEqual([...workerFunction.dynamodb].sort());
    // The stream's read actions come from the event source mapping; all but ListStreams on the stream only.
    for (const statement of statements.filter((s) => [s.Action].flat().some((a) => streamActions.includes(a)))) {
      const onStream = [statement.Action].flat().every((a) => streamActions.includes(a));
      expect(onStream, JSON.stringify(statement.Action)).toBe(true);
      if (JSON.stringify(statement.Action) !== '"dynamodb:ListStreams"') {
        expect(statement.Resource).toEqual({ 'Fn::GetAtt': [logicalIdOf('AWS::DynamoDB::Table', 'Table'), 'StreamArn'] });
      }
    }
    expect(statements.find((s) => [s.Action].flat().includes('events:PutEvents'))!.Resource).toEqual({ 'Fn::GetAtt': [bus, 'Arn'] });
    expect(functionOf(workerId()).Environment.Variables).toMatchObject({ EVENT_BUS_NAME: { Ref: bus } });
  });
});

const functionOf = (id: string) => resources('AWS::Lambda::Function')[id]!.Properties;

describe('API stage', () => {
  it('throttles the stage and writes JSON access logs to a log group with a retention', () => {
    const stage = Object.values(resources('AWS::ApiGatewayV2::Stage'))[0]!.Properties;
    expect(stage).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
    });
    const format = JSON.parse(stage.AccessLogSettings.Format);
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status', routeKey: '$context.routeKey' });
    // Why API Gateway got no answer from a function (its own 500/502): otherwise only in the function's logs, if there.
    expect(format).toMatchObject({ integrationError: '$context.integrationErrorMessage', error: '$context.error.message' });
    const logGroupId = stage.AccessLogSettings.DestinationArn['Fn::GetAtt'][0];
    expect(resources('AWS::Logs::LogGroup')[logGroupId]!.Properties.RetentionInDays).toBe(30);
  });

  it('logs no path, so no share-link token: the route key names the request', () => {
    const stage = Object.values(resources('AWS::ApiGatewayV2::Stage'))[0]!.Properties;
    expect(stage.AccessLogSettings.Format).not.toContain('$context.path');
  });

  it('gives the share-link routes their own, tighter throttle, once their routes exist', () => {
    const [stageId, stage] = Object.entries(resources('AWS::ApiGatewayV2::Stage'))[0]!;
    const tight = { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 };
    expect(stage.Properties.RouteSettings).toEqual({ 'GET /s/{token}': tight, 'GET /s/{token}/content': tight });
    const dependsOn = (template.toJSON().Resources[stageId].DependsOn ?? []) as string[];
    for (const key of Object.keys(stage.Properties.RouteSettings)) {
      const routeId = Object.entries(resources('AWS::ApiGatewayV2::Route')).find(([, r]) => r.Properties.RouteKey === key)![0];
      expect(dependsOn, key).toContain(routeId);
    }
  });

  it('takes throttling (per route) from the environment', () => {
    const custom = synth({ throttleRate: 5, throttleBurst: 10 });
    custom.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
    });
  });

  it('allows no CORS origin by default, and exactly the configured ones otherwise', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { CorsConfiguration: Match.absent() });
    const withCors = synth({ corsOrigins: ['https://app.example.com', 'https://admin.example.com'] });
    withCors.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: Match.objectLike({
        AllowOrigins: ['https://app.example.com', 'https://admin.example.com'],
        AllowHeaders: Match.arrayWith(['authorization', 'content-type', 'if-match']),
        ExposeHeaders: Match.arrayWith(['etag', 'location']),
      }),
    });
  });
});

describe('identity', () => {
  it('makes a Cognito user pool and client without an external issuer, and outputs their ids', () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 1);
    template.hasResourceProperties('AWS::Cognito::UserPool', { AdminCreateUserConfig: { AllowAdminCreateUserOnly: true } });
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', { GenerateSecret: false });
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: {
        // And the web app's client (test/infra/web-app-stack.test.ts).
        Audience: [
          { Ref: logicalIdOf('AWS::Cognito::UserPoolClient', 'AuthClient') },
          { Ref: logicalIdOf('AWS::Cognito::UserPoolClient', 'AuthWebClient') },
        ],
        Issuer: Match.objectLike({
          'Fn::Join': Match.arrayWith([Match.arrayWith([{ Ref: logicalIdOf('AWS::Cognito::UserPool', 'AuthUserPool') }])]),
        }),
      },
    });
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual([
      'ApiUrl',
      'AppUrl',
      'EventBusName',
      'FailedRecordsQueueUrl',
      'SignInDomain',
      'TableName',
      'UserPoolClientId',
      'UserPoolId',
    ]);
  });

  it('makes the CLI app client without OAuth: no implicit or code flow, no callback URL (the web app has its own client)', () => {
    const clients = Object.entries(resources('AWS::Cognito::UserPoolClient'))
      .filter(([id]) => !id.startsWith('AuthWebClient'))
      .map(([, client]) => client);
    expect(clients).toHaveLength(1);
    expect(clients[0]!.Properties).toMatchObject({
      AllowedOAuthFlowsUserPoolClient: false,
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    });
    for (const key of ['AllowedOAuthFlows', 'AllowedOAuthScopes', 'CallbackURLs', 'LogoutURLs', 'DefaultRedirectURI']) {
      expect(clients[0]!.Properties[key], key).toBeUndefined();
    }
  });

  it('uses an external OIDC issuer and audience from the environment, with no user pool', () => {
    const external = synth({ jwtIssuer: 'https://issuer.example.com/', jwtAudience: ['documents-api', 'other'] });
    external.resourceCountIs('AWS::Cognito::UserPool', 0);
    external.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      JwtConfiguration: { Issuer: 'https://issuer.example.com/', Audience: ['documents-api', 'other'] },
    });
    expect(Object.keys(external.findOutputs('*')).sort()).toEqual([
      'ApiUrl',
      'AppUrl',
      'EventBusName',
      'FailedRecordsQueueUrl',
      'TableName',
    ]);
  });

  it('refuses half an issuer configuration', () => {
    expect(() => synth({ jwtIssuer: 'https://issuer.example.com/' })).toThrow(/jwtAudience/);
    expect(() => synth({ jwtAudience: ['documents-api'] })).toThrow(/jwtIssuer and jwtAudience/);
    expect(() => synth({ jwtIssuer: 'http://insecure.example.com/', jwtAudience: ['a'] })).toThrow(/https/);
  });
});

describe('environments (cdk.json, chosen with -c env=<name>)', () => {
  const committed = projectContext().environments as Record<string, Record<string, unknown>>;

  it('synthesizes each committed environment as its entry says', () => {
    expect(Object.keys(committed).length).toBeGreaterThan(0);
    for (const [name, entry] of Object.entries(committed)) {
      const { stack } = buildApp({ context: { ...projectContext(), 'aws:cdk:bundling-stacks': [], env: name } });
      expect(stack.stackName, name).toBe(entry.stackName);
      const chosen = flatTemplate(stack);
      chosen.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        DefaultRouteSettings: { ThrottlingRateLimit: entry.throttleRate, ThrottlingBurstLimit: entry.throttleBurst },
      });
      chosen.resourceCountIs('AWS::Cognito::UserPool', entry.jwtIssuer ? 0 : 1);
      chosen.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: entry.destroyable ? 'Delete' : 'RetainExceptOnCreate' });
    }
  });

  it('refuses to synthesize without a chosen environment, or with one that is not there', () => {
    const names = Object.keys(committed).join(', ');
    const without = { ...projectContext(), 'aws:cdk:bundling-stacks': [] };
    expect(() => buildApp({ context: without })).toThrow(`Choose the environment to synthesize or deploy: -c env=<name>, one of: ${names}`);
    expect(() => buildApp({ context: { ...without, env: 'staging' } })).toThrow(
      `Unknown environment "staging": -c env must be one of: ${names}`,
    );
    expect(() => buildApp({ context: { ...without, env: 'test', environments: {} } })).toThrow(/No environments are configured/);
  });

  it('refuses the old -c flags, so no setting can come from the command line', () => {
    for (const [key, value] of Object.entries({
      jwtIssuer: 'https://issuer.example.com/',
      corsOrigins: 'https://app.example.com',
      throttleRate: '5',
      stackName: 'Other',
      destroyable: 'true',
    })) {
      expect(() => synth({}, { [key]: value }), key).toThrow(`-c ${key} is no longer read`);
    }
  });

  it('refuses an entry that leaves a setting out, misspells one or gives a wrong value', () => {
    const { throttleRate: _, ...withoutRate } = testEnvironment;
    expect(() => buildApp({ context: contextFor({}, { environments: { test: withoutRate } }) })).toThrow(
      /environments\.test must set throttleRate/,
    );
    expect(() => synth({ corsOrigin: ['https://app.example.com'] })).toThrow(/environments\.test has unknown settings: corsOrigin/);
    expect(() => synth({ corsOrigins: ['https://app.example.com/'] })).toThrow(/corsOrigins must be a list of origins/);
    expect(() => synth({ throttleRate: '5' })).toThrow(/throttleRate must be a positive integer/);
    expect(() => synth({ destroyable: 'false' })).toThrow(/destroyable must be true or false/);
    expect(() => synth({ logRetentionDays: 31 })).toThrow(/logRetentionDays must be one of/);
    expect(() => synth({ stackName: 'documents service' })).toThrow(/stackName must be a CloudFormation stack name/);
  });

  it('deploys to the account and region the entry names, when it names them', () => {
    const { stack } = buildApp({ context: contextFor({ account: '123456789012', region: 'eu-west-1' }) });
    expect([stack.account, stack.region]).toEqual(['123456789012', 'eu-west-1']);
    expect(() => synth({ account: '1234' })).toThrow(/account must be a 12-digit AWS account id/);
  });
});
