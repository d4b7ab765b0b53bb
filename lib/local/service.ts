/**
 * The whole service on one machine: DynamoDB Local (or a given endpoint), the table, the file
 * bucket in an S3 emulator (./s3.ts), the handlers' configuration in process.env, and the API
 * Gateway emulator on node:http.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { s3 as handlersS3Client } from '#core/bucket';
import { dynamodb as handlersDynamoDbClient } from '#core/db/client';
import { setMetricsSink } from '#core/metrics';
import { referenceAssetFiles } from '#functions/routes';
import { defaultTableName } from '#lib/table';
import { type DynamoDbLocal, ensureTable, startDynamoDbLocal } from './dynamodb-local';
import { startLocalFinaliser } from './finaliser';
import { createGateway, type Gateway, type GatewayOptions, moduleHandlerLoader, problem, stdoutLines } from './gateway';
import { type IssueTokenOptions, LOCAL_ISSUER, type LocalIssuer, type TokenVerifier, verifierFromEnv } from './jwt';
import { checkLayoutVersion, OldLayoutError } from './layout-version';
import { enforcePermissions, signAsServedFunction } from './permissions';
import { type LocalS3, startLocalS3 } from './s3';
import { type LocalSearchDatabase, startLocalSearch } from './search-database';
import { createWebAppServer, type WebAppServer } from './web-app';
import { type LocalWorker, startLocalWorker } from './worker';
import { readOrCreateOnce } from './write-once';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface LocalServiceOptions {
  /** 0 = a free port; default 0. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Keys, paging secret and (unless inMemory) the DynamoDB files live here. */
  dataDir: string;
  tableName?: string;
  /** Given: use it, don't spawn DynamoDB Local. */
  dynamodbEndpoint?: string;
  /** Spawn DynamoDB Local without persistence. */
  inMemory?: boolean;
  /**
   * Keep the search database on disk under `dataDir` (its page cache as `npm start` has it) even
   * though the DynamoDB files are not this process's; default: on disk only when they are.
   */
  searchOnDisk?: boolean;
  /** The S3 emulator's port (on `host`); 0 = a free port; default 0. Its objects are under `dataDir`/s3. */
  s3Port?: number;
  /** Access log, one line per request; default stdout. */
  log?: (line: string) => void;
  /** Sees every answer the gateway writes. */
  onAnswer?: GatewayOptions['onAnswer'];
  /** Print each change event the worker publishes (EventBridge's part on AWS); default false. */
  printEvents?: boolean;
  /** Print the embedded-metric lines each invocation emits (CloudWatch's part on AWS), through `log`; default false. */
  printMetrics?: boolean;
  /**
   * Where tokens come from: the environment's JWT_ISSUER and JWT_AUDIENCE (`npm start`), or
   * the local issuer whatever the environment says (the default: tests never inherit a shell's issuer).
   */
  issuer?: 'environment' | 'local';
  /**
   * Routes, handlers and token checks of the gateway other than the route table's and the source
   * modules' (`npm run start:template`: the synthesized template's, lib/local/sam/serve.ts).
   */
  routing?: Pick<GatewayOptions, 'resolve' | 'loadHandler'> & { verifier?: (local: TokenVerifier) => TokenVerifier };
}

export interface LocalService {
  url: string;
  port: number;
  tableName: string;
  dynamodbEndpoint: string;
  /** The file bucket: its endpoint (path-style), name, the runtime's own credentials, its ObjectCreated notifications. */
  s3: Pick<LocalS3, 'endpoint' | 'bucket' | 'region' | 'credentials' | 'onObjectCreated'>;
  /** A token from the local issuer; throws in external issuer mode (JWT_ISSUER/JWT_AUDIENCE). */
  issueToken(sub: string, extraClaims?: Record<string, unknown>, options?: IssueTokenOptions): Promise<string>;
  /** The background worker: wait for it to catch up, or listen to the batches it is handed and the change events it publishes. */
  worker: Pick<LocalWorker, 'settled' | 'onBatch' | 'onEvent'>;
  /** The search index's database (PGlite behind the Data API's port). */
  search: LocalSearchDatabase;
  stop(): Promise<void>;
}

/** Thrown for problems the user can fix (port taken, bad configuration): no stack needed. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/**
 * Handlers read their configuration from process.env and keep module-level state (clients,
 * table name), so one process runs one service at a time.
 */
let running = false;

export async function startLocalService(opts: LocalServiceOptions): Promise<LocalService> {
  if (running) throw new StartupError('A local service is already running in this process; stop it first.');
  running = true;
  const cleanups: (() => Promise<void>)[] = [];
  const cleanUp = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => {});
    cleanups.length = 0;
  };
  try {
    await mkdir(opts.dataDir, { recursive: true });
    let auth: Awaited<ReturnType<typeof verifierFromEnv>>;
    try {
      auth = await verifierFromEnv(opts.dataDir, opts.issuer === 'environment' ? process.env : {});
    } catch (error) {
      throw new StartupError(error instanceof Error ? error.message : String(error));
    }

    // Take the port first: a clash is reported at once, before DynamoDB Local is spawned.
    // Until everything is ready, requests get a 503.
    let gateway: Gateway | undefined;
    // The web app and /config.json, ahead of the API's routes (./web-app.ts).
    let webApp: WebAppServer | undefined;
    const starting: RequestListener = (_req, res) => {
      const { statusCode, headers, body } = problem('unavailable', 'The service is starting.', { 'retry-after': '1' });
      res.writeHead(statusCode, headers).end(body);
    };
    const server = createServer((req, res) => webApp?.handle(req, res) || (gateway ?? starting)(req, res));
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) =>
      gateway ? gateway.checkContinue(req, res) : starting(req, res),
    );
    const host = opts.host ?? '127.0.0.1';
    const port = await listen(server, opts.port ?? 0, host);
    cleanups.push(() => closeServer(server));
    const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

    // The search index's database (PGlite), opening in the background: on disk beside the
    // database when this process owns it (as the worker keeps its stream position), else in memory.
    const searchOnDisk = opts.searchOnDisk ?? !(opts.inMemory || opts.dynamodbEndpoint);
    const search: LocalSearchDatabase = startLocalSearch(searchOnDisk ? join(opts.dataDir, 'search') : undefined);
    cleanups.push(() => search.close());

    let endpoint = opts.dynamodbEndpoint;
    if (!endpoint) {
      const dynamodbDir = opts.inMemory ? undefined : join(opts.dataDir, 'dynamodb');
      // Two DynamoDB Locals on one database file would step on each other.
      if (dynamodbDir) cleanups.push(await lockDataDir(opts.dataDir));
      const dynamodb: DynamoDbLocal = await startDynamoDbLocal(dynamodbDir ? { dataDir: dynamodbDir } : {});
      cleanups.push(() => dynamodb.stop());
      endpoint = dynamodb.endpoint;
      // Where `npm run invoke` finds this DynamoDB Local (lib/local/sam/).
      if (dynamodbDir) cleanups.push(await publishEndpoint(opts.dataDir, 'dynamodb', endpoint));
    }
    // In this process: it stops with it, however the process ends.
    let s3: LocalS3;
    try {
      // The bucket's CORS allows exactly the app's origin (this service's), as deployed.
      s3 = await startLocalS3({ dataDir: join(opts.dataDir, 's3'), port: opts.s3Port ?? 0, host, corsOrigins: [baseUrl] });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES') {
        throw new StartupError(`The S3 emulator cannot listen on port ${opts.s3Port} on ${host}: choose another with S3_PORT=...`);
      }
      throw error;
    }
    cleanups.push(() => s3.stop());
    // And the S3 emulator, when this process owns the data folder (as for DynamoDB Local above).
    if (!opts.inMemory && !opts.dynamodbEndpoint) cleanups.push(await publishEndpoint(opts.dataDir, 's3', s3.endpoint));
    const tableName = opts.tableName ?? defaultTableName;
    await ensureTable(endpoint, tableName);
    try {
      await checkLayoutVersion(endpoint, tableName, opts.dataDir);
    } catch (error) {
      if (error instanceof OldLayoutError) throw new StartupError(error.message);
      throw error;
    }

    // Before any handler module is imported (the gateway imports them on first use).
    process.env.TABLE_NAME = tableName;
    process.env.DYNAMODB_ENDPOINT = endpoint;
    process.env.BUCKET_NAME = s3.bucket;
    process.env.S3_ENDPOINT = s3.endpoint;
    process.env.AWS_REGION ||= 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID ||= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ||= 'local';
    // Kept under dataDir so paging tokens stay valid across restarts.
    process.env.PAGING_TOKEN_SECRET ||= (
      await readOrCreateOnce(join(opts.dataDir, 'paging-secret'), () => `${randomBytes(32).toString('base64url')}\n`)
    ).trim();
    // The namespace the stack gives the functions' metrics (the stack name, lib/stack/config.ts).
    process.env.POWERTOOLS_METRICS_NAMESPACE ||= 'DocumentsService';
    // Handlers log JSON lines (functions/core/logger.ts, which reads this at its first line); locally the access line is the one line per request.
    process.env.LOG_LEVEL ||= 'WARN';
    // On AWS a route's `files` sit beside its bundle; here they are read where they are.
    process.env.DOCS_ASSETS_DIR ||= docsAssetsDir();
    // The web app is served here, under /app/: a share link's address is its page (functions/links/create-link.ts).
    process.env.WEB_APP_URL = `${baseUrl}/app`;

    // Each function may call only what its IAM role grants on AWS (./permissions.ts).
    enforcePermissions(handlersDynamoDbClient());
    signAsServedFunction(handlersS3Client(), s3.credentialsOf, s3.credentials);
    const loadHandler = moduleHandlerLoader();
    const log = opts.log ?? stdoutLines();
    // What the functions' metrics would be on AWS: dropped, or one `metrics {EMF}` line each.
    setMetricsSink(opts.printMetrics ? (line) => log(`metrics ${JSON.stringify(line)}`) : () => {});
    cleanups.push(async () => setMetricsSink(undefined));
    const worker = await startLocalWorker({
      endpoint,
      tableName,
      dataDir: opts.dataDir,
      persistent: !opts.inMemory && !opts.dynamodbEndpoint,
      loadHandler,
      log,
      printEvents: opts.printEvents ?? false,
    });
    cleanups.push(() => worker.stop());
    // The bucket's ObjectCreated notifications drive the finalising function, as on AWS.
    const finaliser = startLocalFinaliser({ s3, loadHandler, log });
    cleanups.push(() => finaliser.stop());

    const localIssuer: LocalIssuer | undefined = auth.localIssuer;
    webApp = createWebAppServer({
      bucketOrigin: new URL(s3.endpoint).origin,
      ...(localIssuer ? { issueToken: (user: string) => localIssuer.issueToken(user) } : {}),
    });
    gateway = createGateway({
      verifier: opts.routing?.verifier?.(auth.verifier) ?? auth.verifier,
      loadHandler: opts.routing?.loadHandler ?? loadHandler,
      ...(opts.routing?.resolve ? { resolve: opts.routing.resolve } : {}),
      log,
      ...(opts.onAnswer ? { onAnswer: opts.onAnswer } : {}),
      ...(localIssuer ? { publicDocuments: (path: string) => issuerDocument(path, baseUrl, localIssuer) } : {}),
    });

    let stopping: Promise<void> | undefined;
    return {
      url: baseUrl,
      port,
      tableName,
      dynamodbEndpoint: endpoint,
      s3: {
        endpoint: s3.endpoint,
        bucket: s3.bucket,
        region: s3.region,
        credentials: s3.credentials,
        onObjectCreated: (listener) => s3.onObjectCreated(listener),
      },
      worker: {
        // The finaliser's writes reach the stream too: wait for it, then for the worker.
        settled: async (timeoutMs) => {
          await finaliser.settled();
          await worker.settled(timeoutMs);
        },
        onBatch: (listener) => worker.onBatch(listener),
        onEvent: (listener) => worker.onEvent(listener),
      },
      search,
      async issueToken(sub, extraClaims, options) {
        if (!localIssuer) {
          throw new Error(
            `issueToken() needs the local issuer (${LOCAL_ISSUER}); JWT_ISSUER/JWT_AUDIENCE select an external one: get tokens from it.`,
          );
        }
        return localIssuer.issueToken(sub, extraClaims, options);
      },
      stop: () =>
        (stopping ??= cleanUp().finally(() => {
          running = false;
        })),
    };
  } catch (error) {
    await cleanUp();
    running = false;
    throw error;
  }
}

/** The one folder holding the docs asset route's `files` (swagger-ui-dist). */
function docsAssetsDir(): string {
  const dirs = new Set(referenceAssetFiles.map((file) => dirname(join(projectRoot, file))));
  if (dirs.size !== 1) throw new Error(`The docs assets must share one folder; the route table lists ${[...dirs].join(', ') || 'none'}.`);
  return [...dirs][0]!;
}

/** The local issuer's discovery documents, served without a token. */
function issuerDocument(path: string, baseUrl: string, issuer: LocalIssuer): unknown {
  if (path === '/.well-known/jwks.json') return issuer.jwks;
  if (path === '/.well-known/openid-configuration') {
    return {
      issuer: LOCAL_ISSUER,
      jwks_uri: `${baseUrl}/.well-known/jwks.json`,
      id_token_signing_alg_values_supported: ['RS256'],
      subject_types_supported: ['public'],
      response_types_supported: ['id_token'],
    };
  }
  return undefined;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(new StartupError(`Port ${port} on ${host} is already in use: stop whatever uses it, or choose another with PORT=...`));
      else if (error.code === 'EACCES')
        reject(new StartupError(`Not allowed to listen on port ${port} on ${host}: choose another with PORT=...`));
      else reject(error);
    });
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections(); // keep-alive clients would otherwise hold close() open
  });
}

type Published = 'dynamodb' | 's3';
const endpointFile = (dataDir: string, which: Published) => join(dataDir, `${which}.endpoint`);

/** Writes where the DynamoDB Local or S3 emulator on `dataDir` listens; returns the step that removes it. */
async function publishEndpoint(dataDir: string, which: Published, endpoint: string): Promise<() => Promise<void>> {
  const path = endpointFile(dataDir, which);
  await writeFile(path, `${endpoint}\n`);
  return () => unlink(path).catch(() => {});
}

/** Ctrl-C or SIGTERM stops the service (its DynamoDB Local and S3 emulator with it), then the process. */
export function stopOnSignals(service: Pick<LocalService, 'stop'>): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping...`);
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Could not stop cleanly:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

/** Where a live local service on `dataDir` runs DynamoDB Local and the S3 emulator, if there is one. */
export async function runningEndpoints(dataDir: string): Promise<{ dynamodb: string; s3: string } | undefined> {
  const owner = Number((await readFile(join(dataDir, 'dynamodb.pid'), 'utf8').catch(() => '')).trim());
  if (!owner || !isAlive(owner)) return undefined;
  const read = async (which: Published) => (await readFile(endpointFile(dataDir, which), 'utf8').catch(() => '')).trim();
  const [dynamodb, s3] = await Promise.all([read('dynamodb'), read('s3')]);
  return dynamodb && s3 ? { dynamodb, s3 } : undefined;
}

/**
 * Marks `dataDir` as used by this process (`dynamodb.pid`). A lock left by a process that is
 * gone is taken over. Returns the release step.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, 'dynamodb.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, `${process.pid}\n`, { flag: 'wx' });
      return () => unlink(path).catch(() => {});
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new StartupError(`${dataDir} is in use by another local service (pid ${owner}). Stop it, or use another DATA_DIR.`);
      }
      await unlink(path).catch(() => {});
    }
  }
  throw new StartupError(`Could not lock ${dataDir} (${path}).`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
