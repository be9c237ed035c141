import * as z from 'zod/mini';
import { type ConsoleUser, type EmbedTenant, userRoles } from '#lib/domain/entities';
import { checkItem } from '#lib/store/codecs/stored-item';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';

/** Console users, the links that find them (e-mail, IdP subject, API key digest), and embed tenants. */

const consoleUserItem = () =>
  z.looseObject({
    id: z.int(),
    email: z.string(),
    username: z.string(),
    role: z.enum(userRoles),
    // Absent reads as inactive: a user is active only when something said so.
    active: z.optional(z.boolean()),
  });

export function encodeConsoleUser(user: ConsoleUser): Item {
  return {
    ...keys.user(user.id),
    entity: 'USER',
    id: user.id,
    email: user.email,
    username: user.username,
    role: user.role,
    active: user.active,
  };
}

export function decodeConsoleUser(item: Item): ConsoleUser {
  const stored = checkItem('console user', consoleUserItem, item);
  return {
    id: stored.id,
    email: stored.email,
    username: stored.username,
    role: stored.role,
    active: stored.active === true,
  };
}

/** A link item holds the id of the user it leads to; its key is what the link is found by. */
const userLinkItem = () => z.looseObject({ userId: z.int() });

export const encodeEmailLink = (email: string, userId: number): Item => ({
  ...keys.userByEmail(email),
  entity: 'USER_EMAIL',
  userId,
});

export const encodeSubjectLink = (subject: string, userId: number): Item => ({
  ...keys.userBySubject(subject),
  entity: 'USER_SUBJECT',
  userId,
});

export const encodeApiKeyLink = (sha256Hex: string, userId: number): Item => ({
  ...keys.apiKey(sha256Hex),
  entity: 'API_KEY',
  userId,
});

/** The user id a link (e-mail, subject or API key) leads to. */
export const decodeUserLink = (item: Item): number => checkItem('user link', userLinkItem, item).userId;

const embedTenantItem = () =>
  z.looseObject({
    name: z.string(),
    issuer: z.string(),
    jwks: z.optional(z.looseObject({ keys: z.array(z.looseObject({})) })),
    jwksUri: z.optional(z.string()),
  });

export function encodeEmbedTenant(tenant: EmbedTenant): Item {
  return {
    ...keys.embedTenant(tenant.name),
    entity: 'EMBED_TENANT',
    name: tenant.name,
    issuer: tenant.issuer,
    ...(tenant.jwks ? { jwks: tenant.jwks } : {}),
    ...(tenant.jwksUri ? { jwksUri: tenant.jwksUri } : {}),
  };
}

export function decodeEmbedTenant(item: Item): EmbedTenant {
  const stored = checkItem('embed tenant', embedTenantItem, item);
  return {
    name: stored.name,
    issuer: stored.issuer,
    ...(stored.jwks ? { jwks: stored.jwks } : {}),
    ...(stored.jwksUri ? { jwksUri: stored.jwksUri } : {}),
  };
}
