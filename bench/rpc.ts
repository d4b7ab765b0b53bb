/**
 * Calls between the bench runner and its service process over Node's IPC channel: the runner
 * drives load and keeps the tables; the service process owns the handlers' SDK client, so the
 * direct-SDK baseline and the request recorder run where the service's own requests do.
 */
import type { ChildProcess } from 'node:child_process';

type Handlers = Record<string, (...args: any[]) => unknown>;

interface Call {
  id: number;
  method: string;
  args: unknown[];
}
interface Reply {
  id: number;
  result?: unknown;
  error?: string;
}

/** In the child: answer the parent's calls with `handlers`. */
export function serve(handlers: Handlers): void {
  process.on('message', (message: Call) => {
    const handler = handlers[message.method];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`no such method: ${message.method}`);
        return handler(...message.args);
      })
      .then(
        (result) => process.send!({ id: message.id, result } satisfies Reply),
        (error: unknown) =>
          process.send!({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies Reply),
      );
  });
}

/** In the parent: a typed proxy of the child's handlers (results come back as plain data). */
export function connect<H extends Handlers>(
  child: ChildProcess,
): { [K in keyof H]: (...args: Parameters<H[K]>) => Promise<Awaited<ReturnType<H[K]>>> } {
  let next = 0;
  const pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>();
  child.on('message', (reply: Reply) => {
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    if (reply.error !== undefined) call.reject(new Error(`service process: ${reply.error}`));
    else call.resolve(reply.result);
  });
  child.on('exit', (code) => {
    for (const call of pending.values()) call.reject(new Error(`service process exited (${code})`));
    pending.clear();
  });
  return new Proxy({} as any, {
    get:
      (_target, method: string) =>
      (...args: unknown[]) =>
        new Promise((resolve, reject) => {
          const id = next++;
          pending.set(id, { resolve, reject });
          child.send({ id, method, args } satisfies Call);
        }),
  });
}
