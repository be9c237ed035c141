import { consoleUsers } from '#test/support/fixtures';
import { freshClaims, generateSigningKey, signJwt } from '#test/support/tokens';

/**
 * The callers and dashboards of the embedding tests: two embed tenants with keys of their own, the
 * console and platform issuers, and one dashboard per visibility rule of docs/embedding.md.
 */

const CONSOLE_ISSUER = 'https://idp.test.example';
const PLATFORM_ISSUER = 'https://platform.test.example';
export const ACME_ISSUER = 'https://auth.acme.example';
const GLOBEX_ISSUER = 'https://auth.globex.example';
const INITECH_ISSUER = 'https://auth.initech.example';

const consoleKey = generateSigningKey('console-1');
const platformKey = generateSigningKey('platform-1', 'ES256');
export const acmeKey = generateSigningKey('acme-1');
export const globexKey = generateSigningKey('globex-1', 'ES256');
const initechKey = generateSigningKey('initech-1');

const dashboard = (
  id: number,
  publicId: string,
  state: {
    published: boolean;
    allowEmbed: boolean;
    sharedWithAllEmbedUsers: boolean;
    sharedWithTenants: string[];
  },
) => ({ id, deploymentId: 7, publicId, title: `Dashboard ${publicId}`, ...state });

export const embedDashboards = [
  dashboard(1, 'tenant-on', {
    published: true,
    allowEmbed: true,
    sharedWithAllEmbedUsers: false,
    sharedWithTenants: ['acme'],
  }),
  dashboard(2, 'tenant-off', {
    published: true,
    allowEmbed: false,
    sharedWithAllEmbedUsers: false,
    sharedWithTenants: ['acme'],
  }),
  dashboard(3, 'all-off', {
    published: true,
    allowEmbed: false,
    sharedWithAllEmbedUsers: true,
    sharedWithTenants: [],
  }),
  dashboard(4, 'all-on', {
    published: true,
    allowEmbed: true,
    sharedWithAllEmbedUsers: true,
    sharedWithTenants: [],
  }),
  dashboard(5, 'unpublished-on', {
    published: false,
    allowEmbed: true,
    sharedWithAllEmbedUsers: false,
    sharedWithTenants: ['acme'],
  }),
  dashboard(6, 'unpublished-all', {
    published: false,
    allowEmbed: true,
    sharedWithAllEmbedUsers: true,
    sharedWithTenants: ['acme'],
  }),
  dashboard(7, 'unshared-on', {
    published: true,
    allowEmbed: true,
    sharedWithAllEmbedUsers: false,
    sharedWithTenants: [],
  }),
  dashboard(8, 'globex-on', {
    published: true,
    allowEmbed: true,
    sharedWithAllEmbedUsers: false,
    sharedWithTenants: ['globex'],
  }),
  dashboard(9, 'unpublished-off', {
    published: false,
    allowEmbed: false,
    sharedWithAllEmbedUsers: false,
    sharedWithTenants: [],
  }),
];

export const embedFixture = {
  users: consoleUsers,
  deployments: [{ id: 7, name: 'Production' }],
  dashboards: embedDashboards,
  embedTenants: [
    { name: 'acme', issuer: ACME_ISSUER, jwks: { keys: [acmeKey.publicJwk] } },
    { name: 'globex', issuer: GLOBEX_ISSUER, jwks: { keys: [globexKey.publicJwk] } },
    { name: 'initech', issuer: INITECH_ISSUER, jwks: { keys: [initechKey.publicJwk] } },
  ],
  trustedIssuers: [
    { kind: 'console', issuer: CONSOLE_ISSUER, audience: 'console', jwks: { keys: [consoleKey.publicJwk] } },
    {
      kind: 'platform',
      issuer: PLATFORM_ISSUER,
      audience: 'platform',
      jwks: { keys: [platformKey.publicJwk] },
    },
  ],
};

export const consoleJwt = (subject: string) =>
  signJwt(freshClaims({ iss: CONSOLE_ISSUER, aud: 'console', sub: subject }), consoleKey);

export const platformJwt = (session: string) =>
  signJwt(
    freshClaims({ iss: PLATFORM_ISSUER, aud: 'platform', sub: 'platform-service', session }),
    platformKey,
  );

export const acmeClaims = (claims: Record<string, unknown> = {}) =>
  freshClaims({ iss: ACME_ISSUER, aud: 'embed', sub: 'alice@acme.example', tenant: 'acme', ...claims });

export const acmeJwt = (claims: Record<string, unknown> = {}) => signJwt(acmeClaims(claims), acmeKey);

export const globexJwt = (claims: Record<string, unknown> = {}) =>
  signJwt(
    freshClaims({ iss: GLOBEX_ISSUER, aud: 'embed', sub: 'gina', tenant: 'globex', ...claims }),
    globexKey,
  );

export const initechJwt = () =>
  signJwt(freshClaims({ iss: INITECH_ISSUER, aud: 'embed', sub: 'ian', tenant: 'initech' }), initechKey);
