import type { ConsoleUser, EmbedTenant } from '#lib/domain/entities';

/** How a console user proved who they are: an API key, or a token of the console's identity provider. */
export type ConsoleCredential = 'api_key' | 'console_token';

/** Who is calling, once their credential has been verified. */
export type Principal =
  | { kind: 'console'; user: ConsoleUser; via: ConsoleCredential }
  | { kind: 'platform'; session: PlatformSession }
  | { kind: 'embed'; tenant: string; externalId: string; claims?: EmbedTokenClaims };

/**
 * What an embed token says of its user beyond who they are, as the token carries it (unchecked:
 * self-service checks it as a recipient's properties before using it). Absent claims are absent keys.
 */
export interface EmbedTokenClaims {
  email?: unknown;
  securityContext?: unknown;
  userAttributes?: unknown;
  groups?: unknown;
}

const platformSessions = ['screenshot', 'creator'] as const;
export type PlatformSession = (typeof platformSessions)[number];
export const isPlatformSession = (value: unknown): value is PlatformSession =>
  platformSessions.some((session) => session === value);

/** An active console user with the admin role: the only principal the admin routes accept. */
export function isAdmin(principal: Principal): boolean {
  return principal.kind === 'console' && principal.user.active && principal.user.role === 'admin';
}

/** The platform's renderer: a platform JWT of the `screenshot` session, the one that renders and sends deliveries. */
export function isRenderer(principal: Principal): boolean {
  return principal.kind === 'platform' && principal.session === 'screenshot';
}

/**
 * Where credentials are looked up: the port lib/auth authenticates through, which the store
 * implements (lib/store/users/users.ts).
 */
export interface CredentialDirectory {
  userByApiKeyDigest(digest: string): Promise<ConsoleUser | undefined>;
  userBySubject(subject: string): Promise<ConsoleUser | undefined>;
  embedTenant(name: string): Promise<EmbedTenant | undefined>;
}
