import { UnauthorizedError } from '#lib/errors';

export type Credential = { kind: 'api-key'; key: string } | { kind: 'jwt'; token: string };

const API_KEY_PREFIX = 'sk-';
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const MAX_CREDENTIAL_LENGTH = 16 * 1024;

/**
 * Reads `Authorization: Bearer <token>` or `Api-Key <key>` (scheme case-insensitive). A bearer value
 * starting `sk-` is an API key; anything else must at least look like a JWT.
 */
export function readCredential(authorization: string | undefined): Credential {
  if (!authorization) throw new UnauthorizedError('The Authorization header is missing');
  const match = /^(\S+)\s+(\S+)\s*$/.exec(authorization);
  if (!match || authorization.length > MAX_CREDENTIAL_LENGTH) {
    throw new UnauthorizedError('The Authorization header must be "Bearer <token>"');
  }
  const scheme = (match[1] as string).toLowerCase();
  const value = match[2] as string;
  if (scheme === 'api-key') {
    if (!value.startsWith(API_KEY_PREFIX)) throw new UnauthorizedError('The API key is not valid');
    return { kind: 'api-key', key: value };
  }
  if (scheme !== 'bearer') throw new UnauthorizedError('The Authorization header must be "Bearer <token>"');
  if (value.startsWith(API_KEY_PREFIX)) return { kind: 'api-key', key: value };
  if (!JWT_SHAPE.test(value)) throw new UnauthorizedError('The bearer token is not valid');
  return { kind: 'jwt', token: value };
}
