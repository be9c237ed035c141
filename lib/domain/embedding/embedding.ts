import type { Dashboard } from '#lib/domain/entities';
import { isAdmin, type Principal } from '#lib/domain/principal';
import { ForbiddenError, NotFoundError } from '#lib/errors';

export interface UpdateDashboardEmbeddingInput {
  allowEmbed: boolean;
}

/** Read an embedded dashboard: the dashboard by its public id. */
export interface DashboardLookup {
  find(publicId: string): Promise<Dashboard | undefined>;
}

/** Turn embedding on or off. */
export interface EmbeddingSwitch {
  /** Sets the flag of an existing dashboard and returns it as stored; undefined when there is none. */
  setAllowEmbed(publicId: string, allowEmbed: boolean): Promise<Dashboard | undefined>;
}

/**
 * Who reads an embedded dashboard. `platform`: a trusted platform session (screenshot, creator);
 * `admin`: an active admin console user; `embed`: a customer-signed embed token; `console`: any
 * other console user (refused before the lookup by the route's policy, and here again).
 */
export type EmbedCaller = 'platform' | 'admin' | 'embed' | 'console';

export interface EmbedAccessFacts {
  published: boolean;
  /** Shared with the embed token's own tenant (false for callers without a tenant). */
  sharedWithTenant: boolean;
  sharedWithAll: boolean;
  allowEmbed: boolean;
}

export type EmbedVisibility = 'visible' | 'not_found' | 'forbidden';

/**
 * The embedding rule, for a dashboard that exists. Trusted sessions and
 * admins see it whatever its state. An embed token sees only a published dashboard shared with its
 * tenant or with all embed users (anything else is as if it did not exist), and then needs the
 * allowEmbed switch unless the dashboard is shared with all embed users.
 */
export function embedVisibility(caller: EmbedCaller, facts: EmbedAccessFacts): EmbedVisibility {
  switch (caller) {
    case 'platform':
    case 'admin':
      return 'visible';
    case 'console':
      return 'forbidden';
    case 'embed':
      if (!facts.published || !(facts.sharedWithTenant || facts.sharedWithAll)) return 'not_found';
      return facts.allowEmbed || facts.sharedWithAll ? 'visible' : 'forbidden';
  }
}

export function embedCallerOf(principal: Principal): EmbedCaller {
  if (principal.kind === 'console') return isAdmin(principal) ? 'admin' : 'console';
  return principal.kind;
}

/**
 * Who may ask for embedded dashboards at all, decided before any lookup: everyone but a console user
 * who is not an admin. The route's access policy and `getEmbeddedDashboard` both ask this.
 */
export const mayReadEmbeddedDashboards = (principal: Principal) => embedCallerOf(principal) !== 'console';

function embedAccessFacts(dashboard: Dashboard, principal: Principal): EmbedAccessFacts {
  return {
    published: dashboard.published,
    sharedWithTenant: principal.kind === 'embed' && dashboard.sharedWithTenants.includes(principal.tenant),
    sharedWithAll: dashboard.sharedWithAllEmbedUsers,
    allowEmbed: dashboard.allowEmbed,
  };
}

export interface EmbeddedDashboardDto {
  /** The platform's name for the dashboard's id: the same value as `dashboardId`. */
  id: number;
  publicId: string;
  dashboardId: number;
  deploymentId: number;
  title: string;
  allowEmbed: boolean;
}

export interface DashboardEmbeddingDto {
  publicId: string;
  allowEmbed: boolean;
}

const notFound = (publicId: string) => new NotFoundError(`Dashboard ${publicId}`);

/** GET /v1/embed/dashboard/{publicId}: the dashboard as the caller may see it, or why not. */
export async function getEmbeddedDashboard(
  dashboards: DashboardLookup,
  principal: Principal,
  publicId: string,
): Promise<EmbeddedDashboardDto> {
  // Decided before the lookup, like every authorization: a refused caller learns nothing about ids.
  if (!mayReadEmbeddedDashboards(principal)) throw new ForbiddenError();
  const caller = embedCallerOf(principal);
  const dashboard = await dashboards.find(publicId);
  if (!dashboard) throw notFound(publicId);
  const visibility = embedVisibility(caller, embedAccessFacts(dashboard, principal));
  if (visibility === 'not_found') throw notFound(publicId);
  if (visibility === 'forbidden')
    throw new ForbiddenError('Signed embedding is not allowed for this dashboard');
  return {
    id: dashboard.id,
    publicId: dashboard.publicId,
    dashboardId: dashboard.id,
    deploymentId: dashboard.deploymentId,
    title: dashboard.title,
    allowEmbed: dashboard.allowEmbed,
  };
}

/** PATCH /v1/embed/dashboard/{publicId}: turn signed embedding on or off. */
export async function setDashboardEmbedding(
  embedding: EmbeddingSwitch,
  publicId: string,
  input: UpdateDashboardEmbeddingInput,
): Promise<DashboardEmbeddingDto> {
  const stored = await embedding.setAllowEmbed(publicId, input.allowEmbed);
  if (!stored) throw notFound(publicId);
  return { publicId: stored.publicId, allowEmbed: stored.allowEmbed };
}
