/**
 * The web app deployed (docs/web-app.md): its build in a private S3 bucket behind CloudFront
 * with Origin Access Control, and the API under `/api/*` on the same distribution, so the app
 * makes no cross-origin API call (no CORS preflight). One build serves every environment: the
 * distribution serves a runtime `/config.json` (`apiBase: "/api/"`).
 *
 * - App routes (`/app/...` without a file extension) are rewritten to `/app/index.html` by a
 *   CloudFront Function on the app's behaviour only. Distribution-wide error pages would turn the
 *   API's 403 and 404 into index.html (CloudFront developer guide, "Generate custom error responses").
 * - `/api/*` reaches the HTTP API with the `/api` prefix taken off by a second function; nothing
 *   there is cached, and every viewer header but Host goes to the origin.
 * - A response headers policy gives the app a strict Content-Security-Policy, HSTS, nosniff, no
 *   framing; hashed assets are cached for a year (`immutable`), index.html and config.json never.
 *
 * A construct of its own with one input (the API's endpoint) so the stack wires it in one line
 * (lib/stack/documents-stack.ts, which also gives the sign-in routes of functions/auth/ the
 * distribution's origin: they are reached at `/api/auth/*`).
 */
import { Duration, Fn, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as deployment from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';

export interface WebAppProps {
  /** The HTTP API's endpoint, e.g. `https://abc.execute-api.eu-west-1.amazonaws.com` (HttpApi.apiEndpoint). */
  readonly apiEndpoint: string;
  /** The app's build (web/dist); absent: the bucket and distribution only (tests of the template). */
  readonly buildDir?: string;
  /** Origin of the file bucket, for the CSP's connect-src (parts and downloads go straight to it). */
  readonly fileBucketOrigin: string;
  readonly destroyable?: boolean;
  /** How long the deployment function's logs are kept (CDK would keep them forever). */
  readonly logRetention?: RetentionDays;
}

/** Rewrites an app route to the page; files (with an extension) are served as they are, but a share link's page (`/app/s/{token}`, dots and all) is a route. */
export const SPA_ROUTES = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  var page = uri.indexOf('/app/s/') === 0 && uri.lastIndexOf('/') === 6;
  if (uri === '/app' || page || (uri.indexOf('/app/') === 0 && uri.slice(uri.lastIndexOf('/') + 1).indexOf('.') < 0)) {
    request.uri = '/app/index.html';
  }
  return request;
}`;

/** `/api/x` → `/x` at the HTTP API, whose routes begin at `/`. */
export const STRIP_API_PREFIX = `function handler(event) {
  var request = event.request;
  request.uri = request.uri.replace(/^\\/api(?=\\/|$)/, '') || '/';
  return request;
}`;

export function webAppContentSecurityPolicy(fileBucketOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob: data:",
    'frame-src blob:',
    `connect-src 'self' ${fileBucketOrigin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}

export class WebApp extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  /** The app's origin (https://<distribution domain>): the file bucket's CORS allows exactly this. */
  readonly origin: string;

  constructor(scope: Construct, id: string, props: WebAppProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Kept once made (a failed first deploy removes it), like the service's other buckets.
      removalPolicy: props.destroyable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      autoDeleteObjects: props.destroyable ?? false,
    });

    const headers = new cloudfront.ResponseHeadersPolicy(this, 'Headers', {
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: webAppContentSecurityPolicy(props.fileBucketOrigin), override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.SAME_ORIGIN, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    const appOrigin = origins.S3BucketOrigin.withOriginAccessControl(this.bucket);
    const apiOrigin = new origins.HttpOrigin(Fn.select(2, Fn.split('/', props.apiEndpoint)), {
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
    });
    const fn = (name: string, code: string) =>
      new cloudfront.Function(this, name, { code: cloudfront.FunctionCode.fromInline(code), runtime: cloudfront.FunctionRuntime.JS_2_0 });

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      defaultRootObject: '',
      defaultBehavior: {
        origin: appOrigin,
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        functionAssociations: [{ function: fn('SpaRoutes', SPA_ROUTES), eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        '/api/*': {
          origin: apiOrigin,
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          functionAssociations: [
            { function: fn('StripApiPrefix', STRIP_API_PREFIX), eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
          ],
        },
        '/config.json': {
          origin: appOrigin,
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          responseHeadersPolicy: headers,
        },
      },
    });
    this.origin = `https://${this.distribution.distributionDomainName}`;

    // CDK's deployment function logs here: kept as long as the service's logs, gone with a throwaway stack.
    const logGroup = new LogGroup(this, 'DeploymentLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.destroyable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
    // The runtime configuration: the same build, this environment's API.
    new deployment.BucketDeployment(this, 'Config', {
      destinationBucket: this.bucket,
      logGroup,
      sources: [deployment.Source.jsonData('config.json', { apiBase: '/api/', signIn: 'cognito' })],
      cacheControl: [deployment.CacheControl.noCache()],
      prune: false,
    });
    if (props.buildDir) {
      // Hashed assets: cached for a year; index.html: revalidated on every visit (new builds show at once).
      new deployment.BucketDeployment(this, 'Assets', {
        destinationBucket: this.bucket,
        logGroup,
        destinationKeyPrefix: 'app/assets/',
        sources: [deployment.Source.asset(`${props.buildDir}/assets`)],
        cacheControl: [deployment.CacheControl.fromString('public, max-age=31536000, immutable')],
        prune: false,
      });
      new deployment.BucketDeployment(this, 'Page', {
        destinationBucket: this.bucket,
        logGroup,
        destinationKeyPrefix: 'app/',
        sources: [deployment.Source.asset(props.buildDir, { exclude: ['assets/**', '.vite/**', '.source-hash'] })],
        cacheControl: [deployment.CacheControl.noCache()],
        prune: false,
        distribution: this.distribution,
        distributionPaths: ['/app/index.html', '/config.json'],
      });
    }
    this.acknowledgeFindings();
  }

  /** cdk-nag's findings on the hosting, each with why it stands. */
  private acknowledgeFindings(): void {
    const because = (scope: Construct, reasons: Record<string, string>) => {
      for (const [id, reason] of Object.entries(reasons)) Validations.of(scope).acknowledge({ id, reason });
    };
    because(this.bucket, {
      'AwsSolutions-S1':
        'The bucket holds the public build of the app and is read by CloudFront alone (OAC); what people do is in the API stage access logs, and a change to the bucket is a deployment.',
    });
    because(this.distribution, {
      'AwsSolutions-CFR1': 'The service is not limited to countries; who may use it is decided by sign-in.',
      'AwsSolutions-CFR2':
        'No WAF web ACL by default (a monthly cost per ACL and rule): the API is throttled per route at its stage and every API route but the public ones needs a token. An environment that wants WAF attaches one.',
      'AwsSolutions-CFR3':
        'Standard logging needs an ACL-enabled bucket; the API requests behind /api/* are logged by the stage (docs/operations.md) and the rest are the public files of the app.',
      'AwsSolutions-CFR4':
        'The distribution uses its *.cloudfront.net name and CloudFront default certificate, whose security policy CloudFront fixes; a custom domain with its own certificate is what sets TLSv1.2_2021.',
    });
    // CDK's BucketDeployment: one function for the stack, outside this construct, with CDK's own
    // role (copying from the CDK asset bucket into this one needs the S3 wildcards CDK grants).
    const stack = Stack.of(this);
    const copying =
      "CDK's BucketDeployment copies the app's build from the CDK asset bucket into the app bucket: CDK grants it read of the asset objects and read/write of the app bucket's objects, with its wildcards; nothing else.";
    const wildcards = [
      'Action::s3:Abort*',
      'Action::s3:DeleteObject*',
      'Action::s3:GetBucket*',
      'Action::s3:GetObject*',
      'Action::s3:List*',
      `Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/*`,
      // The asset bucket as cdk-nag names it: with the region and partition when the environment names a region.
      `Resource::arn:${Token.isUnresolved(stack.partition) ? '<AWS::Partition>' : stack.partition}:s3:::cdk-${stack.synthesizer.bootstrapQualifier ?? 'hnb659fds'}-assets-<AWS::AccountId>-${Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region}/*`,
    ];
    // With a build, the page's deployment invalidates index.html and config.json in CloudFront, which CDK grants on `*`.
    const invalidating =
      "CDK's BucketDeployment invalidates /app/index.html and /config.json after copying them: CDK grants cloudfront:CreateInvalidation and GetInvalidation on `*`; the function runs only during a deployment.";
    for (const child of stack.node.children) {
      if (!child.node.id.startsWith('Custom::CDKBucketDeployment')) continue;
      because(child, {
        'AwsSolutions-L1': "CDK's BucketDeployment function: its runtime is the one aws-cdk-lib ships it with, updated with aws-cdk-lib.",
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
          "CDK's BucketDeployment function role uses AWSLambdaBasicExecutionRole (logs only); the function runs only during a deployment.",
        ...Object.fromEntries(wildcards.map((finding) => [`AwsSolutions-IAM5[${finding}]`, copying])),
        'AwsSolutions-IAM5[Resource::*]': invalidating,
      });
    }
  }
}
