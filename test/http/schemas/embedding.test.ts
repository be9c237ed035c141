import { describe, expect, it } from 'vitest';
import { check } from '#lib/http/schemas/common';
import { loadFresh } from '#test/support/fresh-module';

const schemas = () => loadFresh(() => import('#lib/http/schemas/embedding'));

describe('dashboardPath', () => {
  it('accepts URL-safe publicIds up to 128 characters', async () => {
    const { dashboardPath } = await schemas();
    for (const publicId of ['sales-overview', 'a', 'A.b_c~d-9', 'x'.repeat(128)]) {
      expect(check(dashboardPath, { publicId })).toEqual({ value: { publicId }, problems: [] });
    }
  });

  it('refuses empty, over-long and non-URL-safe publicIds, saying why', async () => {
    const { dashboardPath } = await schemas();
    const problemsOf = (publicId: string) => check(dashboardPath, { publicId }).problems;
    expect(problemsOf('')).toEqual([{ path: 'publicId', message: 'is required' }]);
    expect(problemsOf('x'.repeat(129))).toEqual([
      { path: 'publicId', message: 'must be at most 128 characters' },
    ]);
    for (const publicId of ['sales overview', 'a/b', 'a#b', 'é', 'a%20b', 'ab\n', '\nab']) {
      expect(problemsOf(publicId)).toEqual([
        { path: 'publicId', message: 'may contain only letters, digits and . _ ~ -' },
      ]);
    }
  });

  it('refuses other path parameters', async () => {
    const { dashboardPath } = await schemas();
    expect(check(dashboardPath, { publicId: 'a', other: 'b' }).problems).toEqual([
      { path: 'other', message: 'is not a known field' },
    ]);
  });
});

describe('updateDashboardEmbeddingInput', () => {
  it('requires allowEmbed as a boolean and nothing else', async () => {
    const { updateDashboardEmbeddingInput } = await schemas();
    expect(check(updateDashboardEmbeddingInput, { allowEmbed: true }).value).toEqual({ allowEmbed: true });
    expect(check(updateDashboardEmbeddingInput, {}).problems).toEqual([
      { path: 'allowEmbed', message: 'is required' },
    ]);
    for (const allowEmbed of ['true', 1, null, 'yes']) {
      expect(check(updateDashboardEmbeddingInput, { allowEmbed }).problems).toEqual([
        { path: 'allowEmbed', message: 'must be true or false' },
      ]);
    }
    expect(check(updateDashboardEmbeddingInput, { allowEmbed: true, allowembed: false }).problems).toEqual([
      { path: 'allowembed', message: 'is not a known field' },
    ]);
  });
});
