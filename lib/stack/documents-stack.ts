/**
 * The deployed service: the single table, one Lambda function per route of the route table
 * (functions/routes.ts) behind an HTTP API with a JWT authorizer, and the `$default` route for
 * wrong URLs. Nothing about a route is written here: adding a route to the table adds its
 * function, its integration, its authorizer binding and its IAM policy.
 */
import { Aws, CfnOutput, Duration, Lazy, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { fileKeyPrefix } from '#core/bucket';
import { fallbackRoute, finaliserFunction, routes, signInRoutes } from '#functions/routes';
import { tableDefinition } from '#lib/table';
import { ApiAuth } from './auth';
import { BackgroundWorker } from './background-worker';
import { type DeploymentConfig, retentionDays } from './config';
import { FILES_METRICS_FILTER, FileBucket } from './file-bucket';
import { Monitoring } from './monitoring';
import { RouteFunction } from './route-function';
import { RouteGroups } from './route-groups';
import { samLocalRequested } from './sam-local';
import { SearchIndex } from './search-index';
import { WebApp } from './web-app';

export interface DocumentsStackProps extends StackProps {
  readonly config: DeploymentConfig;
  /** The web app's build (web/dist) to deploy with the stack; unset: the hosting and config.json only. */
  readonly webBuildDir?: string;
}

export class DocumentsStack extends Stack {
  constructor(scope: Construct, id: string, props: DocumentsStackProps) {
    super(scope, id, props);
    const { config } = props;
    // Data outlives the stack unless the environment is a throwaway one. Retained only once it
    // exists: a first deploy that fails and rolls back deletes what it made (CloudFormation's
    // RetainExceptOnCreate), so failed attempts leave nothing behind to clean up by hand.
    const removalPolicy = config.destroyable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
    const logRetention = retentionDays(config.logRetentionDays);

    const table = new Table(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: !config.destroyable,
      removalPolicy,
      stream: StreamViewType[tableDefinition.stream],
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
    });

    // Signs list paging tokens (functions/core/paging.ts), and is the input the sign-in cookies'
    // key is derived from (functions/auth/session.ts). Generated at deploy time, never in
    // the template, the repository or a function's configuration: the functions that page are
    // given its ARN, may read it, and read it at run time (cached).
    const pagingSecret = new Secret(this, 'PagingTokenSecret', {
      description: 'HMAC key for list paging tokens of the documents API',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy,
    });
    Validations.of(pagingSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "The key only signs short-lived list positions and derives the sign-in cookies' key; rotating it would invalidate every outstanding nextToken and sign every browser out, and a forged token can only start a page inside a list the caller may already read.",
    });

    // The web app's distribution (made below, once the API exists), except in the sam local
    // template, which is never deployed: SAM serves no CloudFront.
    const withWebApp = !samLocalRequested(this.node.tryGetContext('samLocal'));
    let webApp: WebApp | undefined;
    // File bytes (lib/stack/file-bucket.ts); functions whose route declares S3 actions get its name.
    const files = new FileBucket(this, 'Files', {
      // The app's origin too: parts and downloads go from the app straight to the bucket.
      corsOrigins: withWebApp ? [...config.corsOrigins, Lazy.string({ produce: () => webApp!.origin })] : config.corsOrigins,
      removalPolicy,
      // A throwaway stack empties its buckets on delete, or `cdk destroy` fails on them (not in the
      // sam local template, which is never deployed: its function would be one more to serve).
      autoDeleteObjects: config.destroyable && !samLocalRequested(this.node.tryGetContext('samLocal')),
      logRetentionDays: config.logRetentionDays,
    });

    const observability = { metricsNamespace: config.metricsNamespace, tracing: config.tracing, logLevel: config.logLevel };
    // The search index (lib/stack/search-index.ts): paused when idle in a throwaway stack, a warm floor otherwise.
    const search = new SearchIndex(this, 'SearchIndex', {
      table,
      bucket: files.bucket,
      logRetention,
      removalPolicy,
      observability,
      minCapacity: config.destroyable ? 0 : 0.5,
      maxCapacity: 4,
    });
    const functionFor = (scope: Construct, route: RouteFunctionRoute) => {
      // Only the routes that page (declared in the route table) may read the key.
      const pages = 'pages' in route && route.pages === true;
      const fn = new RouteFunction(scope, route.name, {
        route,
        table,
        bucket: files.bucket,
        logRetention,
        removalPolicy,
        environment: {
          ...(pages ? { PAGING_TOKEN_SECRET_ARN: pagingSecret.secretArn } : {}),
          // The repositories' storage quota (functions/core/limits.ts: 10 GiB unless the environment sets one).
          ...(config.quotaBytes !== undefined ? { QUOTA_BYTES: String(config.quotaBytes) } : {}),
          // A new share link's `url` is the web app's page for it (functions/links/create-link.ts).
          ...(route.handler === 'links/create-link' && withWebApp
            ? { WEB_APP_URL: Lazy.string({ produce: () => `${webApp!.origin}/app` }) }
            : {}),
        },
        observability,
      }).function;
      if (pages) pagingSecret.grantRead(fn);
      // Routes that hand out presigned URLs sign them with the URL signing role (lib/stack/file-bucket.ts).
      if ('presigns' in route && route.presigns === true) files.allowSigning(fn);
      if ('search' in route && route.search === true) search.grantSearch(fn);
      return fn;
    };

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: logRetention, removalPolicy });
    const fallback = functionFor(this, fallbackRoute);
    const api = new HttpApi(this, 'Api', {
      description: 'Online documents service',
      createDefaultStage: false,
      // Wrong URLs reach the fallback function, which answers 404 or 405 as problem+json.
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', fallback),
      ...(config.corsOrigins.length > 0
        ? {
            corsPreflight: {
              allowOrigins: [...config.corsOrigins],
              allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.PUT, CorsHttpMethod.DELETE],
              allowHeaders: ['authorization', 'content-type', 'if-match', 'idempotency-key'],
              exposeHeaders: ['etag', 'location', 'retry-after', 'www-authenticate'],
              maxAge: Duration.hours(1),
            },
          }
        : {}),
    });
    if (withWebApp) {
      webApp = new WebApp(this, 'WebApp', {
        apiEndpoint: api.apiEndpoint,
        // The CSP's connect-src names the region's S3 hosts, not the file bucket's own: the bucket's
        // CORS names the distribution, so the distribution naming the bucket would be a cycle.
        fileBucketOrigin: `https://*.s3.${Aws.REGION}.amazonaws.com`,
        ...(props.webBuildDir ? { buildDir: props.webBuildDir } : {}),
        destroyable: config.destroyable,
        logRetention,
      });
    }
    const auth = new ApiAuth(this, 'Auth', {
      api,
      ...(config.jwt ? { jwt: config.jwt } : {}),
      removalPolicy,
      ...(webApp ? { webOrigin: webApp.origin } : {}),
      ...(config.signInDomainPrefix ? { signInDomainPrefix: config.signInDomainPrefix } : {}),
    });
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        "Every route of the route table has the JWT authorizer except the ones marked public (the API description and its docs page; the two share-link routes, which check the link token themselves; the web app's sign-in routes, which are how a token is got) and $default, which only answers 404/405 and touches no data.",
    });

    const stage = api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      // The stage's default route settings: HTTP API applies these limits to each route separately.
      throttle: config.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            user: '$context.authorizer.claims.sub',
            method: '$context.httpMethod',
            // The route, not the path: the path of a share link holds its token, which no log may
            // record, and one stage has one format for every route (docs/operations.md).
            routeKey: '$context.routeKey',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            error: '$context.error.message',
            // Why API Gateway could not get an answer from the function (a 500 or 502 of its own).
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
          }),
        ),
      },
    });

    // The web app's sign-in routes (functions/auth/), with the pool made here: the managed login's
    // domain and client, and where the browser reaches them. Their sealed cookies' key is derived
    // (HKDF, a label of its own: functions/auth/session.ts) from the paging secret rather than kept
    // in a second secret ($0.40 a month idle; docs/operations.md). Their functions get no `method`:
    // the Idempotency-Key layer is the API's.
    const signIn = auth.webSignIn && webApp ? { ...auth.webSignIn, origin: webApp.origin } : undefined;
    const signInFunctionFor = (scope: Construct, route: (typeof signInRoutes)[number]) => {
      const fn = new RouteFunction(scope, route.name, {
        route: { name: route.name, handler: route.handler, dynamodb: [] },
        table,
        logRetention,
        removalPolicy,
        environment: {
          COGNITO_DOMAIN: signIn!.domain,
          COGNITO_CLIENT_ID: signIn!.clientId,
          AUTH_BASE_URL: `${signIn!.origin}/api/auth`,
          SESSION_KEY_SECRET_ARN: pagingSecret.secretArn,
        },
        observability,
      }).function;
      pagingSecret.grantRead(fn);
      return fn;
    };

    // Each route with its function in the nested stack of its group (./route-groups.ts); all in
    // this one for sam local.
    const groups = new RouteGroups(this, !samLocalRequested(this.node.tryGetContext('samLocal')));
    for (const route of [...routes, ...(signIn ? signInRoutes : [])]) {
      const scope = groups.scopeFor(route.path);
      const isSignIn = signInRoutes.includes(route);
      const httpRoute = new HttpRoute(scope, `${route.name}Route`, {
        httpApi: api,
        routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(
          `${route.name}Integration`,
          isSignIn ? signInFunctionFor(scope, route) : functionFor(scope, route),
        ),
        ...(route.public ? {} : { authorizer: auth.authorizer }),
      });
      if (route.public) {
        Validations.of(httpRoute).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason:
            'A public route of the route table (the API description and its docs page, a share link opened by its token, or the web app sign-in).',
        });
      }
      // A route's own throttle (the public share-link routes): a route setting of the stage, which
      // CloudFormation can only make once the route exists.
      if (route.throttle) {
        (stage.node.defaultChild as CfnStage).addPropertyOverride(`RouteSettings.${route.method} ${route.path}`, {
          ThrottlingRateLimit: Math.min(route.throttle.rateLimit, config.throttle.rateLimit),
          ThrottlingBurstLimit: Math.min(route.throttle.burstLimit, config.throttle.burstLimit),
        });
        stage.node.addDependency(httpRoute);
      }
    }

    const worker = new BackgroundWorker(this, 'Worker', {
      table,
      bucket: files.bucket,
      logRetention,
      removalPolicy,
      observability,
      reserveConcurrency: config.reserveConcurrency,
    });
    search.grantSearch(worker.worker);
    search.grantSearch(worker.sweeper);

    // The bucket's Object Created events (sent to EventBridge: no deploy-time notification function) finish an upload
    // whose bytes arrived (functions/uploads/finalise.ts); a failed delivery is retried twice within an hour, and the
    // sweeper finds what is still left open.
    const finaliser = new RouteFunction(this, finaliserFunction.name, {
      route: finaliserFunction,
      table,
      bucket: files.bucket,
      logRetention,
      removalPolicy,
      environment: {},
      observability,
    }).function;
    new Rule(this, 'UploadArrived', {
      description: 'An object under the file prefix was created: finish the upload it belongs to.',
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created'],
        detail: { bucket: { name: [files.bucket.bucketName] }, object: { key: [{ prefix: fileKeyPrefix }] } },
      },
      targets: [new LambdaFunction(finaliser, { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
    });

    // Alarms to the configured subscriber, and the dashboard (docs/operations.md), with the file
    // bucket's S3 4xx and 5xx (broken presigned URLs).
    const monitoring = new Monitoring(this, 'Monitoring', {
      metricsNamespace: config.metricsNamespace,
      ...(config.alarmEndpoint ? { alarmEndpoint: config.alarmEndpoint } : {}),
      api,
      table,
      worker,
      dashboard: config.dashboard,
    });
    monitoring.watchUploads({ bucket: files.bucket, metricsFilterId: FILES_METRICS_FILTER, finaliser });

    new CfnOutput(this, 'EventBusName', { value: worker.eventBus.eventBusName, description: 'Where changes are published' });
    new CfnOutput(this, 'FailedRecordsQueueUrl', {
      value: worker.deadLetters.queueUrl,
      description: 'Stream records the worker gave up on',
    });
    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint, description: 'Base URL of the API' });
    if (webApp) new CfnOutput(this, 'AppUrl', { value: `${webApp.origin}/app/`, description: 'The web app (the API also at /api/ there)' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
  }
}

type RouteFunctionRoute = ConstructorParameters<typeof RouteFunction>[2]['route'];
