/**
 * A TCP proxy between the service and DynamoDB Local that misbehaves on demand, as a network
 * and a database can: extra latency, connections reset in the middle of a request (before or
 * after the database answered), and a black hole that accepts connections and never answers.
 * Everything the handlers and the worker send goes through it (DYNAMODB_ENDPOINT points here).
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export type Fault = { kind: 'none' } | { kind: 'latency'; ms: number } | { kind: 'reset'; probability: number } | { kind: 'blackhole' };

export interface FaultProxy {
  endpoint: string;
  set(fault: Fault): void;
  /** Connections reset so far, and requests held by the black hole. */
  stats: { resets: number; swallowed: number };
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const { hostname, port } = new URL(target);
  let fault: Fault = { kind: 'none' };
  const stats = { resets: 0, swallowed: 0 };
  const sockets = new Set<Socket>();

  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (fault.kind === 'blackhole') {
      stats.swallowed++;
      client.resume(); // read and drop: the caller waits for an answer that never comes
      return;
    }
    const upstream = createConnection({ host: hostname, port: Number(port) });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('data', (chunk) => {
      const now = fault;
      if (now.kind === 'reset' && Math.random() < now.probability) {
        // Sometimes before the request reached the database, sometimes after it was answered.
        stats.resets++;
        if (Math.random() < 0.5) return reset(client, upstream);
        upstream.write(chunk);
        upstream.once('data', () => reset(client, upstream));
        return;
      }
      if (now.kind === 'latency') setTimeout(() => upstream.write(chunk), now.ms);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (fault.kind === 'latency') setTimeout(() => client.write(chunk), fault.ms);
      else if (!client.destroyed) client.write(chunk);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    set(next) {
      fault = next;
      // A fault applies to connections made from now on; the SDK's kept-alive ones are cut so it reconnects.
      if (next.kind !== 'latency') for (const socket of sockets) socket.destroy();
    },
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function reset(client: Socket, upstream: Socket): void {
  client.resetAndDestroy();
  upstream.destroy();
}
