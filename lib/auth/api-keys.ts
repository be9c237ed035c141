import { createHash } from 'node:crypto';

/** Only this digest of an API key is ever stored or looked up; the key itself is never kept. */
export function apiKeyDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
