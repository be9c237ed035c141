// First: the environment the modules below read when they load.
import './local-process-env.ts';
import { type AddressInfo, isIPv6 } from 'node:net';
import { ValidationError } from '#lib/errors';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { startDispatchLoop } from '#lib/local/dispatch-loop';
import { docsPage } from '#lib/local/docs-page';
import { EngineUnavailableError, startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { functionsFrom } from '#lib/local/handlers';
import { createLocalApi } from '#lib/local/http-adapter';
import { startPurgeLoop } from '#lib/local/purge-loop';
import { startRenderer } from '#lib/local/renderer';
import { startWebhookLoop } from '#lib/local/webhook-loop';
import {
  demoEmbedHint,
  isDemoFixture,
  loadOrCreateDemoEmbedKey,
  withDemoEmbedKey,
} from './demo-embed-key.ts';
import { DEFAULT_TABLE_NAME, DEMO_FIXTURE, readFixture, recordStarted, trustIssuersOf } from './local-env.ts';
import {
  LOCAL_RENDERER_ISSUER,
  localRendererKey,
  localRendererToken,
  useLocalUnsubscribeKey,
} from './local-keys.ts';

/**
 * `npm start`: DynamoDB Local (unless DYNAMODB_ENDPOINT names an engine), the table, the fixture
 * (SEED_FILE, default the demo), the API on http://localhost:$PORT (both on 127.0.0.1 alone unless
 * HOST names another address), the dispatcher (a pass every
 * minute, one line each, jobs to OUTBOX_DIR), the purge of deleted notifications (a pass every
 * few seconds) and the webhook sender (messages out at once) until Ctrl-C.
 */
const LOOPBACK_OR_EVERY = new Set(['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::']);

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  // The demo admin key is published: the API and its engine answer this machine alone unless asked.
  const host = process.env.HOST ?? '127.0.0.1';
  // How clients on this machine reach the API: by name on the loopback or every interface, else by address.
  const reachable = LOOPBACK_OR_EVERY.has(host) ? 'localhost' : isIPv6(host) ? `[${host}]` : host;
  process.env.TABLE_NAME ??= DEFAULT_TABLE_NAME;
  const seedFile = process.env.SEED_FILE ?? DEMO_FIXTURE;
  // The demo tenant's private key is made here on first start, never committed (scripts/demo-embed-key.ts).
  const demoKey = isDemoFixture(seedFile) ? await loadOrCreateDemoEmbedKey() : undefined;
  const seeded = await readFixture(seedFile);
  const fixture = demoKey ? withDemoEmbedKey(seeded, demoKey.key) : seeded;
  trustIssuersOf(fixture);
  // Unsubscribe links point here and are signed with a key of this machine's (.local/, never committed).
  process.env.PUBLIC_BASE_URL ??= `http://${reachable}:${port}`;
  await useLocalUnsubscribeKey();
  const renderer = process.env.RENDERER === 'none' ? undefined : await localRendererKey();
  if (renderer) {
    // The stand-in renderer reports outcomes as the platform's renderer does: a platform token it signs.
    const issuers = JSON.parse(process.env.TRUSTED_ISSUERS ?? '[]') as unknown[];
    process.env.TRUSTED_ISSUERS = JSON.stringify([
      ...issuers,
      {
        kind: 'platform',
        issuer: LOCAL_RENDERER_ISSUER,
        audience: 'platform',
        jwks: { keys: [renderer.publicJwk] },
      },
    ]);
  }

  const engine = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal(host);
  if (engine) process.env.DYNAMODB_ENDPOINT = engine.endpoint;

  await ensureTable();
  const items = await loadFixture(fixture);

  const server = createLocalApi({
    resolveHandler: functionsFrom(new URL('../functions/', import.meta.url)),
    pages: docsPage,
  });
  server.on('error', (error: NodeJS.ErrnoException) => {
    const reason =
      error.code === 'EADDRINUSE' ? `port ${port} is in use (set PORT to another one)` : error.message;
    console.error(`npm start failed: ${reason}`);
    engine?.stop();
    process.exit(1);
  });
  server.listen(port, host, async () => {
    // PORT=0 picks a free port: the one printed is the one bound.
    const bound = (server.address() as AddressInfo).port;
    const baseUrl = `http://${reachable}:${bound}`;
    await recordStarted(baseUrl, process.env.DYNAMODB_ENDPOINT as string);
    const adminKey = fixture.users.find((user) => user.role === 'admin' && user.active)?.apiKeys[0];
    console.log(`API listening on ${baseUrl}`);
    console.log(
      `DynamoDB: ${process.env.DYNAMODB_ENDPOINT} (table ${process.env.TABLE_NAME}, ${items} fixture items)`,
    );
    if (adminKey) console.log(`Demo admin key: ${adminKey}`);
    console.log(`API reference: ${baseUrl}/docs (description: /v1/spec)`);
    if (demoKey) console.log(demoEmbedHint(baseUrl));
    console.log('Press Ctrl-C to stop.');
    dispatcher = startDispatchLoop((line) => console.log(line));
    purge = startPurgeLoop((line) => console.log(line));
    webhooks = startWebhookLoop((line) => console.log(line));
    if (renderer) {
      const mailDir = process.env.MAIL_DIR ?? '.local/mail';
      console.log(
        `Renderer stand-in: each job becomes ${mailDir}/<jobId>.eml, reported delivered; an address starting "bounce" is reported a hard bounce (RENDERER=none: off)`,
      );
      rendering = startRenderer(
        {
          outboxDir: process.env.OUTBOX_DIR ?? '.local/outbox',
          mailDir,
          baseUrl: `http://${reachable}:${port}`,
          delayMs: Number(process.env.RENDERER_DELAY_SECONDS ?? 0) * 1000,
          token: () => localRendererToken(renderer),
        },
        (line) => console.log(line),
      );
    }
  });
  let dispatcher: { stop: () => void } | undefined;
  let rendering: { stop: () => void } | undefined;
  let purge: { stop: () => void } | undefined;
  let webhooks: { stop: () => Promise<void> } | undefined;

  const stop = () => {
    dispatcher?.stop();
    rendering?.stop();
    purge?.stop();
    void webhooks?.stop();
    server.close();
    engine?.stop();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  if (error instanceof EngineUnavailableError || error instanceof ValidationError)
    console.error(error.message);
  else console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
