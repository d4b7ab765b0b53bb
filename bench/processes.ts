/**
 * The bench's other processes: calls over Node's IPC channel (arguments and results as plain
 * data, errors as their stack), and a service of another commit or tree in a process of its own.
 */
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Target } from './load';

type Handlers = Record<string, (...args: any[]) => unknown>;
type Reply = { id: number; result?: unknown; error?: string };
export type Client<H extends Handlers> = { [K in keyof H]: (...args: Parameters<H[K]>) => Promise<Awaited<ReturnType<H[K]>>> };

/** In the child: answer the parent's calls with `handlers`. */
export function serve(handlers: Handlers): void {
  process.on('message', async ({ id, method, args }: { id: number; method: string; args: unknown[] }) => {
    let reply: Reply;
    try {
      if (!handlers[method]) throw new Error(`no such method: ${method}`);
      reply = { id, result: await handlers[method](...args) };
    } catch (error) {
      reply = { id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
    process.send!(reply);
  });
}

/** In the parent: the child's handlers, as async functions. */
export function connect<H extends Handlers>(child: ChildProcess): Client<H> {
  let next = 0;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  child.on('message', ({ id, result, error }: Reply) => {
    const call = pending.get(id);
    pending.delete(id);
    if (error !== undefined) call?.reject(new Error(`child process: ${error}`));
    else call?.resolve(result);
  });
  child.on('exit', (code) => {
    for (const call of pending.values()) call.reject(new Error(`child process exited (${code})`));
    pending.clear();
  });
  const call = (method: string, args: unknown[]) =>
    new Promise((resolve, reject) => {
      pending.set(next, { resolve, reject });
      child.send({ id: next++, method, args });
    });
  return new Proxy({} as Client<H>, {
    get:
      (_target, method: string) =>
      (...args: unknown[]) =>
        call(method, args),
  });
}

/** The top of this checkout, and a commit of it extracted (`git archive`) into `dir`, with this checkout's node_modules. */
const git = (...args: string[]) => promisify(execFile)('git', args);
export async function checkout(commit: string, dir: string): Promise<string> {
  const top = (await git('rev-parse', '--show-toplevel')).stdout.trim();
  await mkdir(dir, { recursive: true });
  await promisify(execFile)('sh', ['-c', `git -C "${top}" archive ${commit} | tar -x -C "${dir}"`]);
  await symlink(join(top, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}
const LAUNCHER = `const [root, endpoint, tableName, dataDir, user] = process.argv.slice(2);
const { startLocalService } = await import(root + '/lib/local/service.ts');
const service = await startLocalService({ port: 0, dataDir, tableName, dynamodbEndpoint: endpoint, log: () => {} });
process.send({ url: service.url, token: await service.issueToken(user) });
process.once('message', async () => {
  await service.stop();
  process.exit(0);
});
`;

/** The local service of the tree at `root` (a `checkout`) in a process of its own on `dynamodbEndpoint`, as `user`. */
export async function startServiceOf(
  root: string,
  options: { scratch: string; dynamodbEndpoint: string; tableName: string; user: string },
): Promise<{ target: Target; stop(): Promise<void> }> {
  const dir = join(options.scratch, options.tableName);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'launch.mts'), LAUNCHER);
  const args = [root, options.dynamodbEndpoint, options.tableName, join(dir, '.data'), options.user];
  const child = fork(join(dir, 'launch.mts'), args, {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'SILENT' }, // what a scenario counts, it counts itself
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const target = await new Promise<Target>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Target));
    child.once('exit', (code) => reject(new Error(`the service of ${root} exited (${code})`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.send('stop');
    });
  return { target, stop };
}
