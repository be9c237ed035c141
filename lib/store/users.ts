import type { CredentialDirectory } from '#lib/auth/authenticate';
import type { ConsoleUser, EmbedTenant, JwkSet } from '#lib/domain/entities';
import { getItem, type Item } from '#lib/store/items';
import { type Key, keys } from '#lib/store/keys';

export function userFromItem(item: Item): ConsoleUser {
  return {
    id: item.id as number,
    email: item.email as string,
    username: item.username as string,
    role: item.role === 'admin' ? 'admin' : 'member',
    active: item.active === true,
  };
}

export function embedTenantFromItem(item: Item): EmbedTenant {
  return {
    name: item.name as string,
    issuer: item.issuer as string,
    ...(item.jwks ? { jwks: item.jwks as JwkSet } : {}),
    ...(item.jwksUri ? { jwksUri: item.jwksUri as string } : {}),
  };
}

async function userLinkedFrom(linkKey: Key): Promise<ConsoleUser | undefined> {
  const link = await getItem(linkKey);
  if (!link) return undefined;
  const user = await getItem(keys.user(link.userId as number));
  return user ? userFromItem(user) : undefined;
}

/** Credentials resolve through a link item (API key digest, IdP subject) to the user item. */
export const credentialDirectory: CredentialDirectory = {
  userByApiKeyDigest: (digest) => userLinkedFrom(keys.apiKey(digest)),
  userBySubject: (subject) => userLinkedFrom(keys.userBySubject(subject)),
  async embedTenant(name) {
    const item = await getItem(keys.embedTenant(name));
    return item ? embedTenantFromItem(item) : undefined;
  },
};
