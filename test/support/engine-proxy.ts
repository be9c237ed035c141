import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the test's DynamoDB Local, which a test switches to make storage fail as a
 * network does: `refuse` (nothing listens: connection refused), `stall` (connections are accepted and
 * held, nothing reaches the engine, no answer comes), `reset` (each connection is reset as soon as a
 * request arrives), and back to `pass`. Connections open at a switch are closed, as an engine that
 * went away closes them; nothing held by a stall ever reaches the engine.
 *
 * A file points its client at the proxy through DYNAMODB_ENDPOINT (as test/support/per-file-env.ts
 * does at the engine) before anything builds the client.
 */

export type EngineMode = 'pass' | 'refuse' | 'stall' | 'reset';

export interface EngineProxy {
  /** The proxy's address, as DYNAMODB_ENDPOINT takes it. */
  endpoint: string;
  /** Connections accepted since the proxy started (a test can tell that a request did reach it). */
  connections(): number;
  set(mode: EngineMode): Promise<void>;
  close(): Promise<void>;
}

export async function startEngineProxy(engineEndpoint: string): Promise<EngineProxy> {
  const engine = new URL(engineEndpoint);
  let mode: EngineMode = 'pass';
  let accepted = 0;
  const open = new Set<Socket>();

  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    // A peer that goes away mid-request is what these tests are about: not an error of the proxy.
    socket.on('error', () => socket.destroy());
  };

  const server: Server = createServer((client) => {
    accepted += 1;
    track(client);
    if (mode === 'stall') {
      // Read and drop what is sent, answer nothing: an engine that stopped working.
      client.resume();
      return;
    }
    if (mode === 'reset') {
      client.once('data', () => client.resetAndDestroy());
      return;
    }
    const upstream = connect(Number(engine.port), engine.hostname);
    track(upstream);
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  const stopListening = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const closeOpen = () => {
    for (const socket of open) socket.destroy();
    open.clear();
  };

  const port = await listen(0);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    async set(next) {
      closeOpen();
      if (next === mode) return;
      if (next === 'refuse') await stopListening();
      else if (mode === 'refuse') await listen(port);
      mode = next;
    },
    async close() {
      closeOpen();
      if (mode !== 'refuse') await stopListening();
    },
  };
}
