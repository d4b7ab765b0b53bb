/**
 * The route table: the one place a route is declared. The local API Gateway emulator
 * (lib/local) and the CDK stack both read it, so a route cannot exist in one and not the other.
 *
 * A route holds what infrastructure needs: method, path, the module under functions/ (without
 * extension) that exports `handler` and `operation`, the DynamoDB actions it needs (least-privilege
 * IAM is built from them), whether it is public, and files it reads. Everything else about an
 * endpoint (schemas, answers, errors, words for readers) is declared in its module, beside its
 * code; CDK and the fallback function never load those modules.
 */
import type { Operation } from './core/http/operation';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type DynamoDbAction =
  | 'dynamodb:BatchGetItem'
  | 'dynamodb:GetItem'
  | 'dynamodb:Query'
  | 'dynamodb:PutItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:ConditionCheckItem'
  | 'dynamodb:BatchWriteItem'
  | 'dynamodb:Scan';

/**
 * S3 actions on the file bucket (functions/core/bucket.ts). IAM grants the object actions on the
 * objects under `fileKeyPrefix` and `s3:ListBucket` for that prefix only; the local emulator holds
 * each function to the same grants (lib/local/s3.ts). `s3:ListBucketMultipartUploads` (listing
 * the uploads in progress) is granted on the bucket: IAM has no prefix condition for it.
 */
export type S3Action =
  | 's3:GetObject'
  | 's3:PutObject'
  | 's3:DeleteObject'
  | 's3:AbortMultipartUpload'
  | 's3:ListMultipartUploadParts'
  | 's3:ListBucket'
  | 's3:ListBucketMultipartUploads';

export interface Route {
  /** Stable name, used for the Lambda function's logical id. */
  readonly name: string;
  readonly method: HttpMethod;
  /** API Gateway HTTP API path, with `{param}` segments. */
  readonly path: string;
  readonly handler: HandlerPath;
  /**
   * The DynamoDB actions its store functions use. What IAM grants is `dynamodbActionsOf(route)`:
   * these, plus the Idempotency-Key record's actions on a write route. The agreement guard
   * (test/guard/agreement.test.ts) holds the grants, and `s3`'s, to exactly what its code can call.
   */
  readonly dynamodb: readonly DynamoDbAction[];
  /** The S3 actions its code uses on the file bucket (none: the function is not told of the bucket). */
  readonly s3?: readonly S3Action[];
  /**
   * Uses the search index (functions/core/search/): IAM grants the RDS Data API on its cluster and
   * read of its secret; the local search database refuses a function without it.
   */
  readonly search?: boolean;
  /** Lists with `nextToken`: only these read the paging-token key (functions/core/paging.ts). */
  readonly pages?: boolean;
  /** Hands clients presigned URLs: on AWS it signs them as the URL signing role (functions/core/bucket.ts, `presign`). */
  readonly presigns?: boolean;
  /** No token needed: API Gateway binds no authorizer to it, and the local gateway checks none. */
  readonly public?: boolean;
  /**
   * Its own throttle, tighter than the stage's default (HTTP API route settings; the stack takes
   * the smaller of the two). Its access log line names the route, not the path (a share link's
   * path holds its token).
   */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * Files (paths from the project root) the handler reads at run time, copied beside the
   * deployed bundle (`/var/task/<basename>`); nothing here is bundled into the code.
   */
  readonly files?: readonly string[];
}

const READ: readonly DynamoDbAction[] = ['dynamodb:BatchGetItem'];
const LIST: readonly DynamoDbAction[] = ['dynamodb:BatchGetItem', 'dynamodb:Query'];
/**
 * TransactWriteItems is authorized per contained action, so a writer lists those. GetItem:
 * a failed ConditionCheck with ReturnValuesOnConditionCheckFailure hands back the stored item
 * (creates tell 403 from 404 that way), which IAM may authorize as a read of it; a writer can
 * read the same items through BatchGetItem anyway, so this grants nothing new.
 */
const WRITE: readonly DynamoDbAction[] = [
  'dynamodb:BatchGetItem',
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
];

/**
 * What finishing an upload asks of the bucket, wherever it runs (complete, the ObjectCreated
 * finaliser, the sweeper): list and join the parts, read the object back (HEAD, and its bytes
 * for the SHA-256), and on a failure abort the parts and delete the object.
 */
const FINISH_UPLOAD: readonly S3Action[] = [
  's3:ListMultipartUploadParts',
  's3:PutObject',
  's3:GetObject',
  's3:AbortMultipartUpload',
  's3:DeleteObject',
];

/**
 * What the Idempotency-Key layer (functions/core/http/idempotency.ts, Powertools) asks of the
 * table on every write route: a conditional put claims the key, a get reads a record that the
 * put's failure did not return, an update stores the answer, a delete releases the key after a
 * 5xx or 429.
 */
export const IDEMPOTENCY_ACTIONS: readonly DynamoDbAction[] = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
];

/** Routes that take Idempotency-Key: every POST, PUT and DELETE (test/unit/write-routes.test.ts checks their handlers). */
export const takesIdempotencyKey = (route: { readonly method?: HttpMethod }) => route.method !== undefined && route.method !== 'GET';

/**
 * Every DynamoDB action a function may call, sorted: what IAM grants it on AWS and what the local
 * runtime lets it do (lib/local/permissions.ts). The one place write routes get the idempotency actions.
 */
export function dynamodbActionsOf(fn: { readonly method?: HttpMethod; readonly dynamodb: readonly DynamoDbAction[] }): DynamoDbAction[] {
  return [...new Set([...fn.dynamodb, ...(takesIdempotencyKey(fn) ? IDEMPOTENCY_ACTIONS : [])])].sort();
}

/** Every S3 action a function may call, sorted: what IAM grants it on AWS and what the local emulator lets it do. */
export function s3ActionsOf(fn: { readonly s3?: readonly S3Action[] }): S3Action[] {
  return [...new Set(fn.s3 ?? [])].sort();
}

/**
 * The public share-link routes' throttle, per route for all callers together: a token is 192
 * random bits, so guessing is hopeless; this bounds what a leaked link, or a crowd of
 * wrong-password guesses spread over many links, can cost.
 */
export const PUBLIC_LINK_THROTTLE = { rateLimit: 10, burstLimit: 20 } as const;

/** Swagger UI's files, read at run time by the reference asset route (copied beside its bundle on AWS). */
export const referenceAssetFiles = ['node_modules/swagger-ui-dist/swagger-ui-bundle.js', 'node_modules/swagger-ui-dist/swagger-ui.css'];

/** What every handler module (functions/<resource>/<verb>.ts) exports. */
export interface HandlerModule {
  readonly handler: (...args: never[]) => unknown;
  readonly operation: Operation;
}

/**
 * A route's handler module: its path under functions/ (no extension), typed by a type-only import
 * of the module, so the compiler checks that it exists and exports a handler and its operation,
 * while CDK and the fallback function never load it. The agreement guard (test/guard) checks that
 * both spellings name the same file.
 */
const handlerAt = <M extends HandlerModule>(path: string): HandlerPath<M> => path as HandlerPath<M>;
/** A handler module's path, branded with the module's type. */
export type HandlerPath<M extends HandlerModule = HandlerModule> = string & { readonly module?: M };

export const routes: readonly Route[] = [
  // The memberships are a Query; the repositories of the page are read with BatchGetItem.
  {
    name: 'ListRepositories',
    method: 'GET',
    path: '/',
    handler: handlerAt<typeof import('./repositories/list-repositories')>('repositories/list-repositories'),
    dynamodb: LIST,
    pages: true,
  },
  {
    name: 'CreateRepository',
    method: 'POST',
    path: '/',
    handler: handlerAt<typeof import('./repositories/create-repository')>('repositories/create-repository'),
    dynamodb: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
  },
  {
    name: 'GetRepository',
    method: 'GET',
    path: '/{id}',
    handler: handlerAt<typeof import('./repositories/get-repository')>('repositories/get-repository'),
    dynamodb: READ,
  },
  {
    name: 'GetRootFolder',
    method: 'GET',
    path: '/{id}/folder',
    handler: handlerAt<typeof import('./repositories/get-root-folder')>('repositories/get-root-folder'),
    dynamodb: READ,
  },
  {
    name: 'GetFolder',
    method: 'GET',
    path: '/folder/{id}',
    handler: handlerAt<typeof import('./folders/get-folder')>('folders/get-folder'),
    dynamodb: READ,
  },
  {
    name: 'CreateFolder',
    method: 'POST',
    path: '/folder',
    handler: handlerAt<typeof import('./folders/create-folder')>('folders/create-folder'),
    dynamodb: WRITE,
  },
  {
    name: 'ListFolders',
    method: 'GET',
    path: '/folder/{id}/folders',
    handler: handlerAt<typeof import('./folders/list-folders')>('folders/list-folders'),
    dynamodb: LIST,
    pages: true,
  },
  {
    name: 'ListDocuments',
    method: 'GET',
    path: '/folder/{id}/documents',
    handler: handlerAt<typeof import('./folders/list-documents')>('folders/list-documents'),
    dynamodb: LIST,
    pages: true,
  },
  {
    name: 'GetDocument',
    method: 'GET',
    path: '/document/{id}',
    handler: handlerAt<typeof import('./documents/get-document')>('documents/get-document'),
    dynamodb: READ,
  },
  {
    name: 'GetDocumentPath',
    method: 'GET',
    path: '/document/{id}/path',
    handler: handlerAt<typeof import('./documents/get-document-path')>('documents/get-document-path'),
    dynamodb: READ,
  },
  // Uploads (docs/api.md: Files): the bytes go to the bucket through presigned URLs; a URL carries
  // the rights of the function that signs it, so signing a part's PUT needs s3:PutObject.
  {
    name: 'StartUpload',
    method: 'POST',
    path: '/uploads',
    handler: handlerAt<typeof import('./uploads/start-upload')>('uploads/start-upload'),
    dynamodb: WRITE,
    s3: ['s3:PutObject', 's3:AbortMultipartUpload'],
    presigns: true,
  },
  {
    name: 'GetUpload',
    method: 'GET',
    path: '/uploads/{id}',
    handler: handlerAt<typeof import('./uploads/get-upload')>('uploads/get-upload'),
    dynamodb: READ,
    s3: ['s3:ListMultipartUploadParts', 's3:GetObject'],
  },
  {
    name: 'CreatePartUrls',
    method: 'POST',
    path: '/uploads/{id}/parts',
    handler: handlerAt<typeof import('./uploads/create-part-urls')>('uploads/create-part-urls'),
    dynamodb: READ,
    s3: ['s3:PutObject'],
    presigns: true,
  },
  {
    name: 'CompleteUpload',
    method: 'POST',
    path: '/uploads/{id}/complete',
    handler: handlerAt<typeof import('./uploads/complete-upload')>('uploads/complete-upload'),
    dynamodb: WRITE,
    s3: FINISH_UPLOAD,
  },
  {
    name: 'CancelUpload',
    method: 'DELETE',
    path: '/uploads/{id}',
    handler: handlerAt<typeof import('./uploads/cancel-upload')>('uploads/cancel-upload'),
    // Its transaction checks no other item.
    dynamodb: WRITE.filter((action) => action !== 'dynamodb:ConditionCheckItem'),
    s3: ['s3:AbortMultipartUpload', 's3:DeleteObject'],
  },
  {
    name: 'CreateDocument',
    method: 'POST',
    path: '/document',
    handler: handlerAt<typeof import('./documents/create-document')>('documents/create-document'),
    // One transaction, read nothing first: its conditions decide (GetItem: see WRITE).
    dynamodb: WRITE.filter((action) => action !== 'dynamodb:BatchGetItem'),
  },
  {
    name: 'UpdateDocument',
    method: 'PUT',
    path: '/document',
    handler: handlerAt<typeof import('./documents/update-document')>('documents/update-document'),
    dynamodb: WRITE,
  },
  {
    name: 'DeleteDocument',
    method: 'DELETE',
    path: '/document/{id}',
    handler: handlerAt<typeof import('./documents/delete-document')>('documents/delete-document'),
    dynamodb: WRITE,
  },
  // A document's content as bytes (docs/api.md: Files): served inline, or a presigned URL of its file; written raw.
  {
    name: 'GetDocumentContent',
    method: 'GET',
    path: '/document/{id}/content',
    handler: handlerAt<typeof import('./documents/get-document-content')>('documents/get-document-content'),
    dynamodb: READ,
    s3: ['s3:GetObject'],
    presigns: true,
  },
  {
    name: 'PutDocumentContent',
    method: 'PUT',
    path: '/document/{id}/content',
    handler: handlerAt<typeof import('./documents/put-document-content')>('documents/put-document-content'),
    dynamodb: WRITE,
    // The bytes go in as a new object; it goes again if the version is refused.
    s3: ['s3:PutObject', 's3:DeleteObject'],
  },
  // Life cycle of repositories and folders, and the trash (docs/api.md: Life cycle, Trash).
  {
    name: 'UpdateRepository',
    method: 'PUT',
    path: '/{id}',
    handler: handlerAt<typeof import('./repositories/update-repository')>('repositories/update-repository'),
    dynamodb: WRITE,
  },
  {
    name: 'DeleteRepository',
    method: 'DELETE',
    path: '/{id}',
    handler: handlerAt<typeof import('./repositories/delete-repository')>('repositories/delete-repository'),
    dynamodb: ['dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  },
  // Query: a move reads whether the folder has sub folders (and, going deeper, how deep they go); a delete whether it is empty.
  {
    name: 'UpdateFolder',
    method: 'PUT',
    path: '/folder',
    handler: handlerAt<typeof import('./folders/update-folder')>('folders/update-folder'),
    // The folder and its entry are put whole (GetItem: see WRITE).
    dynamodb: [
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
      'dynamodb:DeleteItem',
      'dynamodb:ConditionCheckItem',
    ],
  },
  {
    name: 'DeleteFolder',
    method: 'DELETE',
    path: '/folder/{id}',
    handler: handlerAt<typeof import('./folders/delete-folder')>('folders/delete-folder'),
    dynamodb: [...WRITE, 'dynamodb:Query'],
  },
  {
    name: 'ListTrash',
    method: 'GET',
    path: '/{id}/trash',
    handler: handlerAt<typeof import('./trash/list-trash')>('trash/list-trash'),
    dynamodb: LIST,
    pages: true,
  },
  {
    name: 'RestoreTrashItem',
    method: 'POST',
    path: '/{id}/trash/{itemId}/restore',
    handler: handlerAt<typeof import('./trash/restore-trash-item')>('trash/restore-trash-item'),
    dynamodb: [...WRITE, 'dynamodb:Query'],
  },
  {
    name: 'DeleteTrashItem',
    method: 'DELETE',
    path: '/{id}/trash/{itemId}',
    handler: handlerAt<typeof import('./trash/delete-trash-item')>('trash/delete-trash-item'),
    dynamodb: WRITE,
  },
  {
    name: 'EmptyTrash',
    method: 'DELETE',
    path: '/{id}/trash',
    handler: handlerAt<typeof import('./trash/empty-trash')>('trash/empty-trash'),
    dynamodb: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
  },
  // History: revisions, and each repository's change feed (docs/api.md: Revisions, Change feed).
  {
    name: 'ListRevisions',
    method: 'GET',
    path: '/document/{id}/revisions',
    handler: handlerAt<typeof import('./revisions/list-revisions')>('revisions/list-revisions'),
    dynamodb: LIST,
    pages: true,
  },
  {
    name: 'GetRevision',
    method: 'GET',
    path: '/document/{id}/revisions/{version}',
    handler: handlerAt<typeof import('./revisions/get-revision')>('revisions/get-revision'),
    dynamodb: READ,
  },
  {
    name: 'GetRevisionContent',
    method: 'GET',
    path: '/document/{id}/revisions/{version}/content',
    handler: handlerAt<typeof import('./revisions/get-revision-content')>('revisions/get-revision-content'),
    dynamodb: READ,
    s3: ['s3:GetObject'],
    presigns: true,
  },
  {
    name: 'RestoreRevision',
    method: 'POST',
    path: '/document/{id}/revisions/{version}/restore',
    handler: handlerAt<typeof import('./revisions/restore-revision')>('revisions/restore-revision'),
    dynamodb: WRITE,
  },
  {
    name: 'ListChanges',
    method: 'GET',
    path: '/{id}/changes',
    handler: handlerAt<typeof import('./changes/list-changes')>('changes/list-changes'),
    dynamodb: LIST,
    pages: true,
  },
  // Sharing: `{userId}` is a JWT `sub`, percent-encoded in the path (docs/api.md: Sharing).
  {
    name: 'ListMembers',
    method: 'GET',
    path: '/{id}/members',
    handler: handlerAt<typeof import('./members/list-members')>('members/list-members'),
    dynamodb: LIST,
    pages: true,
  },
  {
    name: 'PutMember',
    method: 'PUT',
    path: '/{id}/members/{userId}',
    handler: handlerAt<typeof import('./members/put-member')>('members/put-member'),
    dynamodb: WRITE,
  },
  {
    name: 'RemoveMember',
    method: 'DELETE',
    path: '/{id}/members/{userId}',
    handler: handlerAt<typeof import('./members/remove-member')>('members/remove-member'),
    dynamodb: WRITE,
  },
  // Share links (docs/api.md: Share links): made, listed and revoked by members; opened by anyone
  // who holds the token, on the two public routes, with their own throttle.
  {
    name: 'CreateLink',
    method: 'POST',
    path: '/document/{id}/links',
    handler: handlerAt<typeof import('./links/create-link')>('links/create-link'),
    dynamodb: WRITE,
  },
  {
    name: 'ListDocumentLinks',
    method: 'GET',
    path: '/document/{id}/links',
    handler: handlerAt<typeof import('./links/list-document-links')>('links/list-document-links'),
    dynamodb: LIST,
    pages: true,
  },
  {
    name: 'ListRepositoryLinks',
    method: 'GET',
    path: '/{id}/links',
    handler: handlerAt<typeof import('./links/list-repository-links')>('links/list-repository-links'),
    dynamodb: LIST,
    pages: true,
  },
  {
    name: 'GetLink',
    method: 'GET',
    path: '/links/{linkId}',
    handler: handlerAt<typeof import('./links/get-link')>('links/get-link'),
    dynamodb: READ,
  },
  {
    name: 'RevokeLink',
    method: 'DELETE',
    path: '/links/{linkId}',
    handler: handlerAt<typeof import('./links/revoke-link')>('links/revoke-link'),
    dynamodb: WRITE,
  },
  // One BatchGetItem reads the link and its document; one UpdateItem writes `lastUsedAt` or a password check's claim.
  {
    name: 'GetSharedDocument',
    method: 'GET',
    path: '/s/{token}',
    handler: handlerAt<typeof import('./links/get-shared-document')>('links/get-shared-document'),
    // GetItem: a failed claim hands back the link as it is (see WRITE).
    dynamodb: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
    public: true,
    throttle: PUBLIC_LINK_THROTTLE,
  },
  {
    name: 'GetSharedContent',
    method: 'GET',
    path: '/s/{token}/content',
    handler: handlerAt<typeof import('./links/get-shared-content')>('links/get-shared-content'),
    // GetItem: a failed claim hands back the link as it is (see WRITE).
    dynamodb: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
    s3: ['s3:GetObject'],
    presigns: true,
    public: true,
    throttle: PUBLIC_LINK_THROTTLE,
  },
  // Search (docs/api.md: Search): the index, and the caller's memberships (a Query and the repositories' BatchGetItem).
  {
    name: 'Search',
    method: 'GET',
    path: '/search',
    handler: handlerAt<typeof import('./search/search')>('search/search'),
    dynamodb: LIST,
    pages: true,
    search: true,
  },
  // The API's own reference, public: the OpenAPI document and Swagger UI (docs/api-decisions.md).
  {
    name: 'GetOpenApi',
    method: 'GET',
    path: '/openapi.json',
    handler: handlerAt<typeof import('./reference/get-openapi')>('reference/get-openapi'),
    dynamodb: [],
    public: true,
  },
  {
    name: 'GetDocsPage',
    method: 'GET',
    path: '/docs',
    handler: handlerAt<typeof import('./reference/get-docs-page')>('reference/get-docs-page'),
    dynamodb: [],
    public: true,
  },
  {
    name: 'GetDocsAsset',
    method: 'GET',
    path: '/docs/{asset}',
    handler: handlerAt<typeof import('./reference/get-docs-asset')>('reference/get-docs-asset'),
    dynamodb: [],
    public: true,
    files: referenceAssetFiles,
  },
];

/**
 * The web app's sign-in (docs/web-app.md: Deployed): Cognito's managed login through these
 * token-mediating routes, public (they are how a token is got) and reading nothing but the
 * secret their sealed-cookie key is derived from (functions/auth/session.ts). The stack adds them only with its own Cognito
 * user pool (not with an external `jwtIssuer`); the local service has none of them, as it has no
 * Cognito (it has a development sign-in of its own instead). They are not part of the documents
 * API (openapi.json): redirects and cookies for a browser, not resources.
 */
export const signInRoutes: readonly Route[] = [
  { name: 'SignInLogin', method: 'GET', path: '/auth/login', handler: 'auth/login' as HandlerPath, dynamodb: [], public: true },
  { name: 'SignInCallback', method: 'GET', path: '/auth/callback', handler: 'auth/callback' as HandlerPath, dynamodb: [], public: true },
  { name: 'SignInRefresh', method: 'POST', path: '/auth/refresh', handler: 'auth/refresh' as HandlerPath, dynamodb: [], public: true },
  { name: 'SignInLogout', method: 'GET', path: '/auth/logout', handler: 'auth/logout' as HandlerPath, dynamodb: [], public: true },
];

/**
 * API Gateway's `$default` route: whatever matches no route above. It answers 404 for an
 * unknown path and 405 (with `Allow`) for a known path asked with another method. Public,
 * so a wrong URL is reported as such even without a token.
 */
export const fallbackRoute = { name: 'Fallback', handler: 'fallback', dynamodb: [] as readonly DynamoDbAction[] } as const;

/** Removing file bytes under a prefix (functions/core/files/objects.ts): the worker's and the sweeper's. */
export const REMOVE_BYTES: readonly S3Action[] = [
  's3:ListBucket',
  's3:DeleteObject',
  's3:ListBucketMultipartUploads',
  's3:AbortMultipartUpload',
];

/**
 * The background worker: not a route, a function the table's stream drives (functions/worker/,
 * lib/stack). Its DynamoDB and S3 actions are declared here like a route's, for its IAM policy.
 * S3: removing file bytes (functions/core/files/objects.ts): list and delete the objects under a
 * prefix, list and abort the multipart uploads under it.
 */
export const workerFunction = {
  name: 'Worker',
  handler: 'worker/stream',
  dynamodb: [...WRITE, 'dynamodb:Query', 'dynamodb:BatchWriteItem'] as readonly DynamoDbAction[],
  // And verifying a large upload a range at a time (the verify-upload task: core/use-cases/finish-upload.ts).
  s3: [
    ...new Set<S3Action>([
      's3:ListBucket',
      's3:DeleteObject',
      's3:ListBucketMultipartUploads',
      's3:AbortMultipartUpload',
      ...FINISH_UPLOAD,
      // GetObject: the text of files, for the search index (functions/worker/indexer.ts).
      's3:GetObject',
    ]),
  ] as readonly S3Action[],
  search: true,
} as const;

/**
 * The finaliser: not a route, the function the bucket's ObjectCreated notification invokes
 * (functions/uploads/finalise.ts): it finishes an upload whose bytes arrived, as `complete` does.
 */
export const finaliserFunction = {
  name: 'Finaliser',
  handler: 'uploads/finalise',
  dynamodb: WRITE,
  s3: FINISH_UPLOAD,
} as const;

/**
 * The sweeper: run on a schedule, it finds background work the stream did not finish (the sweep
 * index, a Query) and drives it with the worker's own code (functions/worker/sweeper.ts), so it
 * needs what the worker needs.
 */
export const sweeperFunction = {
  name: 'Sweeper',
  handler: 'worker/sweep',
  dynamodb: workerFunction.dynamodb,
  // It also finishes or expires uploads whose notification or request was lost (functions/core/use-cases/finish-upload.ts).
  s3: workerFunction.s3,
  // The tasks it runs drop a deleted repository's rows from the search index (core/use-cases/reclaim-repository.ts).
  search: true,
} as const;

/**
 * The search index's rebuild (functions/search/reindex.ts; locally `npm run reindex`): it scans
 * the table for folders and documents and indexes each as the worker does, so it needs what the
 * worker's indexer reads (items, feed positions, file text) and the Scan.
 */
export const reindexFunction = {
  name: 'SearchReindex',
  handler: 'search/reindex',
  dynamodb: ['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:BatchGetItem'] as readonly DynamoDbAction[],
  s3: ['s3:GetObject'] as readonly S3Action[],
  search: true,
} as const;

/** Applies the search index's migrations at deploy (functions/search/migrate.ts, a CDK trigger): the Data API only. */
export const migrateFunction = {
  name: 'SearchMigrate',
  handler: 'search/migrate',
  dynamodb: [] as readonly DynamoDbAction[],
  search: true,
} as const;

/** Every function of the stack: the routes', the fallback's and those no route invokes (read afresh: tests plant routes). */
export const allFunctions = () => [
  ...routes,
  fallbackRoute,
  workerFunction,
  sweeperFunction,
  finaliserFunction,
  reindexFunction,
  migrateFunction,
];

/** Splits a route path into segments; `{x}` segments match any one non-empty segment. */
function segments(path: string): string[] {
  return path === '/' ? [] : path.slice(1).split('/');
}

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/**
 * The segments of a request path as API Gateway HTTP APIs route it: percent-decoded first, so
 * an encoded `/` (`%2F`) separates segments like a plain one and no path parameter ever holds a
 * `/`. A segment that is not valid percent-encoding is kept as sent.
 */
function decodedSegments(path: string): string[] {
  return segments(path).flatMap((segment) => safeDecode(segment).split('/'));
}

/**
 * Matches a path against a set of routes the way API Gateway HTTP APIs do: on the decoded path
 * (path parameters reach the handler decoded), and a literal segment beats a `{param}` segment
 * at the same position, so `/folder/{id}` wins over `/{id}/folder` for `/folder/folder`, and
 * `/folder/x` never reaches `/{id}`.
 */
export function matchPath(candidates: readonly Route[], path: string): RouteMatch | undefined {
  const actual = decodedSegments(path);
  let best: { match: RouteMatch; score: string } | undefined;
  for (const route of candidates) {
    const expected = segments(route.path);
    if (expected.length !== actual.length) continue;
    const pathParameters: Record<string, string> = {};
    let score = '';
    let ok = true;
    for (let i = 0; i < expected.length && ok; i++) {
      const want = expected[i]!;
      const got = actual[i]!;
      if (want.startsWith('{') && want.endsWith('}')) {
        if (got === '') ok = false;
        else pathParameters[want.slice(1, -1)] = got;
        score += '0';
      } else {
        ok = want === got;
        score += '1';
      }
    }
    if (ok && (!best || score > best.score)) best = { match: { route, pathParameters }, score };
  }
  return best?.match;
}

/** The route for a method and path, or undefined when API Gateway would use `$default`. */
export function findRoute(method: string, path: string): RouteMatch | undefined {
  return matchPath(
    routes.filter((r) => r.method === method),
    path,
  );
}

/** Methods served at a path (for 405's `Allow`); empty when the path is unknown. */
export function allowedMethods(path: string): HttpMethod[] {
  const methods = new Set<HttpMethod>();
  for (const route of routes) if (matchPath([route], path)) methods.add(route.method);
  return [...methods].sort();
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
