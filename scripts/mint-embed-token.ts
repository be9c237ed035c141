import { parseArgs } from 'node:util';
import {
  DEMO_TENANT,
  demoEmbedKeyFile,
  EMBED_TOKEN_LIFETIME_SECONDS,
  loadOrCreateDemoEmbedKey,
  mintDemoEmbedToken,
} from './demo-embed-key.ts';
import { DEMO_FIXTURE, readFixture } from './local-env.ts';

const usage = `Usage: npm run -s embed-token -- [--sub <externalId>] [--email <e-mail>] [--group <name>]...
                                [--security-context <json>] [--lifetime <seconds>]

Prints an embed token for the demo tenant "${DEMO_TENANT}", signed with the local demo key
(${demoEmbedKeyFile()}). Default lifetime ${EMBED_TOKEN_LIFETIME_SECONDS} s; the API refuses more than 24 h.
Use it as: curl -H "Authorization: Bearer $TOKEN" http://localhost:3000/v1/embed/dashboard/ops-kpis`;

/** `npm run embed-token`: a customer-signed embed token for the demo tenant, as `npm start` trusts it. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sub: { type: 'string', default: 'demo-user' },
      email: { type: 'string' },
      group: { type: 'string', multiple: true },
      'security-context': { type: 'string' },
      lifetime: { type: 'string', default: String(EMBED_TOKEN_LIFETIME_SECONDS) },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const lifetimeSeconds = Number(values.lifetime);
  if (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds <= 0) throw new Error(`--lifetime: ${usage}`);
  let securityContext: unknown;
  if (values['security-context'] !== undefined) {
    try {
      securityContext = JSON.parse(values['security-context']);
    } catch {
      throw new Error('--security-context must be JSON, e.g. \'{"region":"EU"}\'');
    }
  }

  const fixture = await readFixture(DEMO_FIXTURE);
  const tenant = fixture.embedTenants.find((t) => t.name === DEMO_TENANT);
  if (!tenant) throw new Error(`The demo fixture has no embed tenant "${DEMO_TENANT}"`);
  const { key, created } = await loadOrCreateDemoEmbedKey();
  if (created) {
    console.error(
      `Made a new demo embed key in ${demoEmbedKeyFile()}; restart npm start so that it trusts it.`,
    );
  }

  console.log(
    mintDemoEmbedToken(key, {
      issuer: tenant.issuer,
      audience: process.env.EMBED_AUDIENCE ?? 'embed',
      externalId: values.sub,
      email: values.email,
      groups: values.group,
      securityContext,
      lifetimeSeconds,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(`npm run embed-token failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
