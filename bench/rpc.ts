/**
 * Calls from the runner to the service process over Node's IPC channel. Arguments and results
 * travel as plain data (structured clone), errors as their stack.
 */
import type { ChildProcess } from 'node:child_process';

type Handlers = Record<string, (...args: any[]) => unknown>;
type Reply = { id: number; result?: unknown; error?: string };

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

export type Client<H extends Handlers> = { [K in keyof H]: (...args: Parameters<H[K]>) => Promise<Awaited<ReturnType<H[K]>>> };

/** In the parent: the child's handlers, as async functions. */
export function connect<H extends Handlers>(child: ChildProcess): Client<H> {
  let next = 0;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  child.on('message', ({ id, result, error }: Reply) => {
    const call = pending.get(id);
    pending.delete(id);
    if (error !== undefined) call?.reject(new Error(`service process: ${error}`));
    else call?.resolve(result);
  });
  child.on('exit', (code) => {
    for (const call of pending.values()) call.reject(new Error(`service process exited (${code})`));
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
