import { describe, expect, it } from 'vitest';
import {
  type DashboardLookup,
  type EmbedCaller,
  type EmbeddingSwitch,
  type EmbedVisibility,
  embedCallerOf,
  embedVisibility,
  getEmbeddedDashboard,
  setDashboardEmbedding,
} from '#lib/domain/embedding/embedding';
import type { Dashboard } from '#lib/domain/entities';
import { ForbiddenError, NotFoundError } from '#lib/errors';
import { principals } from '#test/support/domain-fixtures';

const V: EmbedVisibility = 'visible';
const N: EmbedVisibility = 'not_found';
const F: EmbedVisibility = 'forbidden';

/**
 * Every combination of the dashboard's state, with the outcome for each caller kind, written out
 * rather than computed: published, shared with the token's tenant, shared with all embed users,
 * allowEmbed → platform session, admin, other console user, embed token.
 */
const table: [
  boolean,
  boolean,
  boolean,
  boolean,
  EmbedVisibility,
  EmbedVisibility,
  EmbedVisibility,
  EmbedVisibility,
][] = [
  // published sharedTenant sharedAll allowEmbed  platform admin console embed
  [false, false, false, false, V, V, F, N],
  [false, false, false, true, V, V, F, N],
  [false, false, true, false, V, V, F, N],
  [false, false, true, true, V, V, F, N],
  [false, true, false, false, V, V, F, N],
  [false, true, false, true, V, V, F, N],
  [false, true, true, false, V, V, F, N],
  [false, true, true, true, V, V, F, N],
  [true, false, false, false, V, V, F, N],
  [true, false, false, true, V, V, F, N],
  [true, false, true, false, V, V, F, V],
  [true, false, true, true, V, V, F, V],
  [true, true, false, false, V, V, F, F],
  [true, true, false, true, V, V, F, V],
  [true, true, true, false, V, V, F, V],
  [true, true, true, true, V, V, F, V],
];

const callers: EmbedCaller[] = ['platform', 'admin', 'console', 'embed'];
const rows = table.flatMap(([published, sharedWithTenant, sharedWithAll, allowEmbed, ...outcomes]) =>
  callers.map((caller, i) => ({
    caller,
    facts: { published, sharedWithTenant, sharedWithAll, allowEmbed },
    expected: outcomes[i] as EmbedVisibility,
  })),
);

describe('embedVisibility', () => {
  it('covers every combination of caller kind and dashboard state', () => {
    expect(rows).toHaveLength(4 * 2 ** 4);
    expect(new Set(rows.map((row) => JSON.stringify([row.caller, row.facts]))).size).toBe(rows.length);
  });

  it.each(rows)('$caller with $facts → $expected', ({ caller, facts, expected }) => {
    expect(embedVisibility(caller, facts)).toBe(expected);
  });
});

describe('embedCallerOf', () => {
  it('counts only active admins as admins, and every platform session as platform', () => {
    expect(embedCallerOf(principals.admin)).toBe('admin');
    expect(embedCallerOf(principals.adminByJwt)).toBe('admin');
    expect(embedCallerOf(principals.member)).toBe('console');
    expect(embedCallerOf(principals.deactivatedAdmin)).toBe('console');
    expect(embedCallerOf(principals.screenshot)).toBe('platform');
    expect(embedCallerOf(principals.creator)).toBe('platform');
    expect(embedCallerOf(principals.acme)).toBe('embed');
  });
});

const dashboard: Dashboard = {
  id: 70,
  deploymentId: 7,
  publicId: 'sales-overview',
  title: 'Sales',
  published: true,
  allowEmbed: true,
  sharedWithAllEmbedUsers: false,
  sharedWithTenants: ['acme'],
};

function repositoryOf(dashboards: Dashboard[]) {
  const stored = new Map(dashboards.map((d) => [d.publicId, { ...d }]));
  const reads: string[] = [];
  const repository: DashboardLookup & EmbeddingSwitch = {
    async find(publicId) {
      reads.push(publicId);
      return stored.get(publicId);
    },
    async setAllowEmbed(publicId, allowEmbed) {
      const found = stored.get(publicId);
      if (found) found.allowEmbed = allowEmbed;
      return found;
    },
  };
  return { repository, reads };
}

describe('getEmbeddedDashboard', () => {
  it("answers with the public fields only (id is the platform's name for dashboardId)", async () => {
    const { repository } = repositoryOf([dashboard]);
    expect(await getEmbeddedDashboard(repository, principals.acme, 'sales-overview')).toEqual({
      id: 70,
      publicId: 'sales-overview',
      dashboardId: 70,
      deploymentId: 7,
      title: 'Sales',
      allowEmbed: true,
    });
  });

  it('matches the token tenant against the dashboard tenants', async () => {
    const { repository } = repositoryOf([dashboard]);
    await expect(getEmbeddedDashboard(repository, principals.globex, 'sales-overview')).rejects.toThrow(
      NotFoundError,
    );
  });

  it('gives not found for an unknown dashboard to every caller that may read', async () => {
    const { repository } = repositoryOf([]);
    for (const principal of [principals.admin, principals.screenshot, principals.acme]) {
      await expect(getEmbeddedDashboard(repository, principal, 'nope')).rejects.toThrow(
        new NotFoundError('Dashboard nope'),
      );
    }
  });

  it('refuses an embed token of the tenant a dashboard is shared with while it does not allow embedding', async () => {
    const { repository } = repositoryOf([{ ...dashboard, allowEmbed: false }]);
    await expect(getEmbeddedDashboard(repository, principals.acme, 'sales-overview')).rejects.toThrow(
      new ForbiddenError('Signed embedding is not allowed for this dashboard'),
    );
  });

  it('refuses other console users before any lookup', async () => {
    const { repository, reads } = repositoryOf([dashboard]);
    await expect(getEmbeddedDashboard(repository, principals.member, 'sales-overview')).rejects.toThrow(
      ForbiddenError,
    );
    await expect(getEmbeddedDashboard(repository, principals.deactivatedAdmin, 'nope')).rejects.toThrow(
      ForbiddenError,
    );
    expect(reads).toEqual([]);
  });
});

describe('setDashboardEmbedding', () => {
  it('answers with the stored flag, and not found for an unknown dashboard', async () => {
    const { repository } = repositoryOf([dashboard]);
    expect(await setDashboardEmbedding(repository, 'sales-overview', { allowEmbed: false })).toEqual({
      publicId: 'sales-overview',
      allowEmbed: false,
    });
    await expect(setDashboardEmbedding(repository, 'nope', { allowEmbed: true })).rejects.toThrow(
      NotFoundError,
    );
  });
});
