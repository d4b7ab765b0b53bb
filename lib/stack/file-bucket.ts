/**
 * The file bucket: where the bytes of file documents live (docs/api.md: Files). Clients send and
 * fetch them straight to and from it with presigned URLs; functions get only the S3 actions their
 * route declares, on the objects under the file prefix (lib/stack/route-function.ts).
 *
 * - Private: all public access blocked, object ownership enforced (no ACLs), TLS only (a bucket
 *   policy refuses plain HTTP), encrypted at rest with S3-managed keys (SSE-S3: presigned URLs
 *   need no KMS grant and requests cost no KMS calls).
 * - CORS for the environment's origins only (`corsOrigins`), for what a browser does with a
 *   presigned URL: PUT the bytes, GET or HEAD them (lib/bucket.ts); none when the list is empty.
 * - Parts of multipart uploads nobody completed or aborted are deleted after a day.
 * - Versioning off: every version of a document is an object of its own, written once and
 *   never overwritten, and the service deletes an object only on purpose (purge, pruning,
 *   repository deletion, abandoned uploads), when the contract says the bytes must be gone.
 *   S3 versioning would keep every deleted object as a billed noncurrent version, so "nothing
 *   left in the bucket" would be false until a lifecycle rule caught up.
 * - Server access logs, to a bucket of their own, kept `logRetentionDays`: who fetched which
 *   object with which URL.
 */
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AccountRootPrincipal, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { bucketDefinition, corsRules } from '#lib/bucket';

export interface FileBucketProps {
  /** Browser origins that may use presigned URLs (`corsOrigins`); [] for none. */
  readonly corsOrigins: readonly string[];
  readonly removalPolicy: RemovalPolicy;
  /**
   * Empty both buckets when they are deleted (a `destroyable` environment): CloudFormation cannot
   * delete a bucket that holds objects, and the access-log bucket always does. CDK's custom
   * resource (one Lambda function for the stack, a role, one resource per bucket) first denies
   * new writes (the log delivery's too), then deletes every object.
   */
  readonly autoDeleteObjects: boolean;
  /** Days to keep the access logs. */
  readonly logRetentionDays: number;
}

/** The bucket's request-metrics filter (all objects), which the S3 alarms read. */
export const FILES_METRICS_FILTER = 'EntireBucket';

export class FileBucket extends Construct {
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;
  /**
   * What signs the presigned URLs handed to clients (docs/operations.md: Presigned URLs and the
   * signing session): a function assumes it (STS AssumeRole, an hour at most when chained from a
   * Lambda role) and learns when its session expires, which a Lambda role's own credentials do
   * not tell; no URL is promised past it (functions/core/bucket.ts, `presign`).
   */
  readonly urlSigner: Role;

  constructor(scope: Construct, id: string, props: FileBucketProps) {
    super(scope, id);
    const privateBucket = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: props.autoDeleteObjects,
    } as const;

    // Delivered by the S3 logging service under a bucket policy (no ACLs).
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      ...privateBucket,
      lifecycleRules: [{ id: 'ExpireLogs', expiration: Duration.days(props.logRetentionDays) }],
    });
    Validations.of(this.accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log bucket of the file bucket; logging its own access would log the log deliveries.',
    });

    this.bucket = new Bucket(this, 'Files', {
      ...privateBucket,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'files/',
      // CloudWatch request metrics (4xx, 5xx, all requests) for the whole bucket: the S3 alarms of
      // lib/stack/monitoring.ts watch broken presigned URLs on them. Billed as custom metrics.
      metrics: [{ id: FILES_METRICS_FILTER }],
      lifecycleRules: [
        {
          id: 'AbortIncompleteMultipartUploads',
          abortIncompleteMultipartUploadAfter: Duration.days(bucketDefinition.abortIncompleteMultipartUploadDays),
        },
      ],
      // The same rules the local emulator configures (lib/bucket.ts); none when there are no origins.
      cors: corsRules(props.corsOrigins).map((rule) => ({
        allowedOrigins: [...rule.allowedOrigins],
        allowedMethods: rule.allowedMethods.map((method) => HttpMethods[method]),
        allowedHeaders: [...rule.allowedHeaders],
        exposedHeaders: [...rule.exposedHeaders],
        maxAge: rule.maxAgeSeconds,
      })),
    });
    // A URL can do what its signer may: fetch or send an object's bytes (a part's too), under the file prefix only.
    this.urlSigner = new Role(this, 'UrlSigner', {
      assumedBy: new AccountRootPrincipal(),
      maxSessionDuration: Duration.hours(1),
      description: 'Signs the presigned URLs of the file bucket; assumed by the functions that hand them out.',
    });
    this.urlSigner.addToPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [this.bucket.arnForObjects(`${bucketDefinition.keyPrefix}*`)],
      }),
    );
    const bucketId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnBucket);
    Validations.of(this.urlSigner).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${bucketDefinition.keyPrefix}*]`,
      reason: `Object keys are made at run time (one per document version): the signer may get and put objects under the file prefix (${bucketDefinition.keyPrefix}*) only.`,
    });

    // Object Created events go to EventBridge, where a rule invokes the upload finaliser
    // (lib/stack/documents-stack.ts). Set on the bucket resource itself: the L2 property would
    // add CDK's deploy-time notifications function, and a role with a managed policy with it.
    (this.bucket.node.defaultChild as CfnBucket).notificationConfiguration = { eventBridgeConfiguration: { eventBridgeEnabled: true } };
  }

  /** Lets `fn` sign presigned URLs: it may assume the signing role, and is told its ARN. */
  allowSigning(fn: LambdaFunction): void {
    this.urlSigner.grantAssumeRole(fn.role!);
    fn.addEnvironment('URL_SIGNING_ROLE_ARN', this.urlSigner.roleArn);
  }
}
