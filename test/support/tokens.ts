import { createHmac } from 'node:crypto';
import { base64url, generateSigningKey, signJwt } from '#lib/local/sign-jwt';

export { generateSigningKey, signJwt };

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Standard claims valid for an hour from now. */
export function freshClaims(claims: Record<string, unknown>): Record<string, unknown> {
  const iat = nowSeconds();
  return { iat, exp: iat + 3600, ...claims };
}

/** The "none" algorithm attack: a token with no signature at all. */
export function unsignedJwt(payload: Record<string, unknown>, kid = 'any'): string {
  return `${base64url(JSON.stringify({ alg: 'none', typ: 'JWT', kid }))}.${base64url(JSON.stringify(payload))}.`;
}

/** A symmetric token, e.g. signed with a public key's text as the HMAC secret (key-confusion attack). */
export function hs256Jwt(payload: Record<string, unknown>, secret: string, kid = 'any'): string {
  const input = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid }))}.${base64url(JSON.stringify(payload))}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** A validly signed token whose payload was changed afterwards. */
export function tamperedJwt(token: string, changes: Record<string, unknown>): string {
  const [head, body, signature] = token.split('.') as [string, string, string];
  const payload = { ...JSON.parse(Buffer.from(body, 'base64url').toString('utf8')), ...changes };
  return `${head}.${base64url(JSON.stringify(payload))}.${signature}`;
}

/**
 * The renderer's platform issuer for one test file (`name` keeps files' issuers apart): its
 * trusted-issuer setting, and a fresh token of the renderer for a session (`screenshot` by default).
 */
export function platformRenderer(name: string) {
  const issuer = `https://platform.${name}.example`;
  const key = generateSigningKey(`platform-${name}`, 'ES256');
  return {
    issuer,
    publicJwk: key.publicJwk,
    trustedIssuer: {
      kind: 'platform',
      issuer,
      audience: 'platform',
      jwks: { keys: [key.publicJwk] },
    } as const,
    token: (session = 'screenshot') =>
      signJwt(freshClaims({ iss: issuer, aud: 'platform', sub: 'renderer', session }), key),
  };
}
