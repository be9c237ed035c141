import type { ConsoleUser } from '#lib/domain/entities';
import type { CredentialDirectory } from '#lib/domain/principal';
import { decodeConsoleUser, decodeEmbedTenant, decodeUserLink } from '#lib/store/codecs/users';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import type { Key } from '#lib/store/dynamo/keys';

async function userLinkedFrom(linkKey: Key): Promise<ConsoleUser | undefined> {
  const link = await getItem(linkKey);
  if (!link) return undefined;
  const user = await getItem(keys.user(decodeUserLink(link)));
  return user ? decodeConsoleUser(user) : undefined;
}

/** Credentials resolve through a link item (API key digest, IdP subject) to the user item. */
export const credentialDirectory: CredentialDirectory = {
  userByApiKeyDigest: (digest) => userLinkedFrom(keys.apiKey(digest)),
  userBySubject: (subject) => userLinkedFrom(keys.userBySubject(subject)),
  async embedTenant(name) {
    const item = await getItem(keys.embedTenant(name));
    return item ? decodeEmbedTenant(item) : undefined;
  },
};
