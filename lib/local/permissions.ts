/**
 * IAM on this machine: each function may call only the DynamoDB actions its role grants on AWS
 * (`dynamodbActionsOf` in functions/routes.ts, the same list the stack puts in its policy). The
 * local runtime runs every handler in one process on one shared client, so the function being
 * served is carried in an AsyncLocalStorage (`runAsFunction`, around each invocation by the
 * gateway, the stream feeder and the sweeper), and a middleware on the handlers' DynamoDB client
 * refuses a request outside its grants the way DynamoDB does: `AccessDeniedException`, before it
 * is sent. A missing action is then a failing request in every local test, not a 500 on AWS.
 *
 * What a request needs is IAM's rule for each operation: its own action, and for
 * TransactWriteItems one action per contained step (Put, Update, Delete, ConditionCheck →
 * PutItem, UpdateItem, DeleteItem, ConditionCheckItem). Asking for the old item back on a failed
 * condition (`ReturnValuesOnConditionCheckFailure: ALL_OLD`) is counted as a read of it
 * (GetItem): AWS does not document it either way, and the stricter rule can only over-grant.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type DynamoDBClient, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { type DynamoDbAction, dynamodbActionsOf, type HttpMethod } from '#functions/routes';

/** A function as the route table declares it (a route, the fallback, the worker). */
export interface DeclaredFunction {
  readonly name: string;
  readonly method?: HttpMethod;
  readonly dynamodb: readonly DynamoDbAction[];
  /** Granted the search database (the RDS Data API on its cluster): lib/local/search-database.ts checks it. */
  readonly search?: boolean;
}

interface Grant {
  name: string;
  actions: ReadonlySet<string>;
  search: boolean;
}

const serving = new AsyncLocalStorage<Grant>();

/**
 * Each function's grant, made once per declaration of its actions rather than per invocation: the
 * Set is made again only when the declaration's `dynamodb` list is another (tests plant a missing
 * action by replacing it) or its search grant changed.
 */
const grants = new WeakMap<DeclaredFunction, { from: DeclaredFunction['dynamodb']; grant: Grant }>();
function grantOf(fn: DeclaredFunction): Grant {
  const made = grants.get(fn);
  const search = fn.search === true;
  if (made && made.from === fn.dynamodb && made.grant.search === search) return made.grant;
  const grant = Object.freeze({ name: fn.name, actions: new Set(dynamodbActionsOf(fn)), search });
  grants.set(fn, { from: fn.dynamodb, grant });
  return grant;
}

/** Runs `work` as `fn`: its DynamoDB requests are held to `fn`'s grants. */
export function runAsFunction<T>(fn: DeclaredFunction, work: () => T): T {
  return serving.run(grantOf(fn), work);
}

/** The function being served, if any (the other local services hold it to its grants). */
export const servedFunction = (): Readonly<Grant> | undefined => serving.getStore();

type TransactStep = {
  Put?: unknown;
  Update?: unknown;
  Delete?: unknown;
  ConditionCheck?: { ReturnValuesOnConditionCheckFailure?: string };
};
type Input = { TransactItems?: TransactStep[]; ReturnValuesOnConditionCheckFailure?: string };

/** The IAM actions one request needs. */
export function actionsNeeded(operation: string, input: Input): DynamoDbAction[] {
  const needed = new Set<string>();
  if (operation === 'TransactWriteItems') {
    for (const step of input.TransactItems ?? []) {
      if (step.Put) needed.add('dynamodb:PutItem');
      if (step.Update) needed.add('dynamodb:UpdateItem');
      if (step.Delete) needed.add('dynamodb:DeleteItem');
      if (step.ConditionCheck) needed.add('dynamodb:ConditionCheckItem');
      const returnsOld = Object.values(step).some(
        (action) =>
          (action as { ReturnValuesOnConditionCheckFailure?: string } | undefined)?.ReturnValuesOnConditionCheckFailure === 'ALL_OLD',
      );
      if (returnsOld) needed.add('dynamodb:GetItem');
    }
  } else {
    needed.add(`dynamodb:${operation}`);
    if (input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') needed.add('dynamodb:GetItem');
  }
  return [...needed].sort() as DynamoDbAction[];
}

/** DynamoDB's answer to a request its caller's policy does not allow. */
export class AccessDenied extends DynamoDBServiceException {
  constructor(functionName: string, action: string) {
    super({
      name: 'AccessDeniedException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      message: `User: arn:aws:sts::000000000000:assumed-role/${functionName}Role/${functionName} is not authorized to perform: ${action} on resource: the table because no identity-based policy allows the ${action} action`,
    });
  }
}

const installed = new WeakSet<object>();

/** An access key pair, as the SDK takes it. */
export interface KeyPair {
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * S3 is held to a function's grants by the bucket itself, as on AWS, where a presigned URL also
 * carries the rights of whoever signed it: the local S3 emulator (./s3.ts) gives each function a
 * key of its own and refuses what its route does not declare (`s3ActionsOf`). This makes the
 * handlers' S3 client sign, requests and presigned URLs alike, with the key of the function being
 * served; outside any function it keeps its own credentials (which the emulator does not know).
 */
export function signAsServedFunction(client: S3Client, keyOf: (functionName: string) => KeyPair, runtimeKey?: KeyPair): void {
  if (installed.has(client)) return;
  installed.add(client);
  const config = client.config as { credentials: (options?: unknown) => Promise<KeyPair> };
  const own = config.credentials;
  // Replaced outright: assigning it would go through the SDK's setter, which memoizes the first
  // identity it gets for good. The request signer and the presigner both read it per request.
  Object.defineProperty(config, 'credentials', {
    value: async (options?: unknown) => {
      const grant = serving.getStore();
      // Outside any function (the runtime's own work, the bench's direct store calls): the runtime's key, held to no policy.
      return grant ? keyOf(grant.name) : (runtimeKey ?? own(options));
    },
    enumerable: true,
    configurable: true,
    writable: true,
  });
}

/**
 * Makes `client` refuse what the function being served may not do. Requests made outside any
 * function (the local runtime's own set-up, tests seeding data) are not held to a policy.
 */
export function enforcePermissions(client: DynamoDBClient): void {
  if (installed.has(client)) return;
  installed.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const grant = serving.getStore();
      if (grant) {
        const operation = (context.commandName ?? '').replace(/Command$/, '');
        for (const action of actionsNeeded(operation, args.input as Input)) {
          if (!grant.actions.has(action)) throw new AccessDenied(grant.name, action);
        }
      }
      return next(args);
    },
    // Before the SDK's retries: a denied request is never sent, as IAM refuses it before DynamoDB looks.
    { step: 'initialize', name: 'localIamPolicy', priority: 'high' },
  );
}
