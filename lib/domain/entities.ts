/** The stored things the operations read, as the domain sees them (no keys, no DynamoDB types). */

export const userRoles = ['admin', 'member'] as const;
type UserRole = (typeof userRoles)[number];

export interface ConsoleUser {
  id: number;
  email: string;
  username: string;
  role: UserRole;
  active: boolean;
}

export interface JwkSet {
  keys: Record<string, unknown>[];
}

/** A customer who signs embed tokens; their keys come inline or from a JWKS URI. */
export interface EmbedTenant {
  name: string;
  issuer: string;
  jwks?: JwkSet;
  jwksUri?: string;
}

export interface Dashboard {
  id: number;
  deploymentId: number;
  publicId: string;
  title: string;
  published: boolean;
  allowEmbed: boolean;
  sharedWithAllEmbedUsers: boolean;
  sharedWithTenants: string[];
}

export interface EmbedUser {
  embedUserId: number;
  embedTenantName: string;
  /** As first supplied (trimmed); matching uses the lower-cased form. */
  externalId: string;
  email: string;
}
