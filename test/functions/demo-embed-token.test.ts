import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decomposeUnverifiedJwt } from 'aws-jwt-verify/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { generateSigningKey } from '#test/support/tokens';
import {
  isDemoFixture,
  loadOrCreateDemoEmbedKey,
  mintDemoEmbedToken,
  withDemoEmbedKey,
} from '../../scripts/demo-embed-key.ts';
import { DEMO_FIXTURE, readFixture } from '../../scripts/local-env.ts';

/**
 * The README's "Embedding locally" walk-through: `npm run embed-token` signs with the key made on
 * the developer's machine, `npm start` registers that key for the demo tenant, and the token then
 * fetches the demo dashboards. The key lives in a temporary directory here, not in `.local/`.
 */

const run = promisify(execFile);
const mintScript = fileURLToPath(new URL('../../scripts/mint-embed-token.ts', import.meta.url));

let directory: string;
let keyFile: string;
let api: LocalApi;

async function mint(...args: string[]): Promise<{ token: string; stderr: string }> {
  const { stdout, stderr } = await run(process.execPath, [mintScript, ...args], {
    env: { ...process.env, DEMO_EMBED_KEY_FILE: keyFile, EMBED_AUDIENCE: 'embed' },
  });
  return { token: stdout.trim(), stderr };
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'demo-embed-key-'));
  keyFile = join(directory, 'nested', 'demo-embed-key.json');
});
afterAll(async () => {
  await api?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('npm run embed-token against the demo fixture', () => {
  let token: string;

  it('makes the demo key on first use, readable by its owner only, and prints just the token', async () => {
    const first = await mint(
      '--sub',
      'alice@acme.example',
      '--email',
      'alice@acme.example',
      '--group',
      'sales',
    );
    expect(first.stderr).toMatch(/new demo embed key/);
    expect(first.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(keyFile, 'utf8'));
    expect(saved.privateJwk.d).toEqual(expect.any(String));
    token = first.token;

    const { header, payload } = decomposeUnverifiedJwt(token);
    expect(header).toMatchObject({ alg: 'RS256', kid: saved.kid });
    expect(payload).toMatchObject({
      iss: 'https://auth.acme.example',
      aud: 'embed',
      sub: 'alice@acme.example',
      tenant: 'acme',
      email: 'alice@acme.example',
      groups: ['sales'],
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);

    const second = await mint();
    expect(second.stderr).not.toMatch(/new demo embed key/);
    expect(decomposeUnverifiedJwt(second.token).header.kid).toBe(saved.kid);
  });

  it('fetches the demo dashboards as the demo fixture shares them', async () => {
    const { key, created } = await loadOrCreateDemoEmbedKey(keyFile);
    expect(created).toBe(false);
    api = await startLocalApi(withDemoEmbedKey(await readFixture(DEMO_FIXTURE), key));

    const get = (publicId: string) => api.request('GET', `/v1/embed/dashboard/${publicId}`, { token });
    const opsKpis = await get('ops-kpis');
    expect(opsKpis.status).toBe(200);
    expect(opsKpis.body).toEqual({
      id: 71,
      publicId: 'ops-kpis',
      dashboardId: 71,
      deploymentId: 7,
      title: 'Operations KPIs',
      allowEmbed: true,
    });
    expect((await get('public-pulse')).status).toBe(200);
    expect((await get('sales-overview')).status).toBe(403);
    expect((await get('draft-board')).status).toBe(404);

    const patch = await api.request('PATCH', '/v1/embed/dashboard/sales-overview', {
      token: 'sk-demo-admin',
      body: { allowEmbed: true },
    });
    expect(patch.body).toEqual({ publicId: 'sales-overview', allowEmbed: true });
    expect((await get('sales-overview')).status).toBe(200);
  });

  it('mints a token the API refuses when asked for more than 24 hours', async () => {
    const { token: long } = await mint('--lifetime', String(25 * 3600));
    const response = await api.request('GET', '/v1/embed/dashboard/ops-kpis', { token: long });
    expect(response.status).toBe(401);
  });

  it('refuses bad flags with a message and a non-zero exit', async () => {
    await expect(mint('--lifetime', 'soon')).rejects.toMatchObject({ code: 1 });
    await expect(mint('--security-context', '{nope')).rejects.toMatchObject({
      stderr: expect.stringMatching(/--security-context must be JSON/),
    });
  });
});

describe('the demo key and npm start', () => {
  it('gives the local key to the demo fixture only', () => {
    expect(isDemoFixture(DEMO_FIXTURE)).toBe(true);
    expect(isDemoFixture(fileURLToPath(DEMO_FIXTURE))).toBe(true);
    expect(isDemoFixture(join(tmpdir(), 'demo.json'))).toBe(false);
  });

  it('replaces the keys of the demo tenant and leaves every other tenant as it is', async () => {
    const key = generateSigningKey('local');
    const fixture = await readFixture(DEMO_FIXTURE);
    const other = {
      name: 'globex',
      issuer: 'https://auth.globex.example',
      jwksUri: 'https://auth.globex.example/jwks',
    };
    const result = withDemoEmbedKey({ ...fixture, embedTenants: [...fixture.embedTenants, other] }, key);
    expect(result.embedTenants).toEqual([
      { name: 'acme', issuer: 'https://auth.acme.example', jwks: { keys: [key.publicJwk] } },
      other,
    ]);
    expect(JSON.stringify(key.publicJwk)).not.toMatch(/"d"/);
  });

  it('mints from the key it stored: a token signed with it verifies against the stored public key', async () => {
    const { key } = await loadOrCreateDemoEmbedKey(keyFile);
    const minted = mintDemoEmbedToken(key, {
      issuer: 'https://auth.acme.example',
      audience: 'embed',
      externalId: 'bob',
    });
    expect((await api.request('GET', '/v1/embed/dashboard/ops-kpis', { token: minted })).status).toBe(200);
  });
});
