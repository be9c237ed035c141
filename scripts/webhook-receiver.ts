import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * `npm run webhook-receiver -- <secret>`: a customer's endpoint on this machine. It verifies each
 * message with the Standard Webhooks reference library, as an integrator's handler would, prints the
 * verified ones (one line each: id, type, and what the event is about) and answers 204; a message
 * that does not verify is printed as refused and answered 401. `WEBHOOK_RECEIVER_PORT` (default 4000) is where it listens
 * (127.0.0.1 only). Without a secret it prints messages unverified, so that the secret can be pasted in
 * after the endpoint is created.
 */

const secret = process.argv[2];
const port = Number(process.env.WEBHOOK_RECEIVER_PORT ?? 4000);
const verifier = secret ? new Webhook(secret) : undefined;

/** What an event is about, in a few words: the run and its status, the notification, the recipient. */
function about(data: Record<string, unknown>): string {
  const parts = ['deploymentId', 'notificationId', 'runId', 'status'].flatMap((name) =>
    data[name] === undefined ? [] : [`${name}=${String(data[name])}`],
  );
  return parts.join(' ');
}

const server = createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
  );
  try {
    const payload = (verifier ? verifier.verify(body, headers) : JSON.parse(body)) as {
      type: string;
      data: Record<string, unknown>;
    };
    console.log(
      `${verifier ? 'verified' : 'unverified'} ${headers['webhook-id']} ${payload.type} ${about(payload.data)}`,
    );
    response.writeHead(204).end();
  } catch (error) {
    console.log(`refused ${headers['webhook-id'] ?? '(no id)'}: ${(error as Error).message}`);
    response.writeHead(401).end();
  }
});

server.listen(port, '127.0.0.1', () => {
  const bound = (server.address() as AddressInfo).port;
  console.log(
    `Webhook receiver on http://127.0.0.1:${bound}/hooks${verifier ? '' : ' (no secret: not verifying)'}`,
  );
});
