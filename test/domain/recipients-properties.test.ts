import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  mergeProperties,
  propertiesChanged,
  suppliedProperties,
} from '#lib/domain/recipients/recipients-properties';

describe('canonicalJson', () => {
  it('gives the same text for objects whose keys come in another order, at any depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
  });

  it('writes every object’s keys in order', () => {
    expect(canonicalJson({ c: 1, a: { z: 1, y: 2 }, b: [{ d: 1, c: 2 }] })).toBe(
      '{"a":{"y":2,"z":1},"b":[{"c":2,"d":1}],"c":1}',
    );
  });

  it('keeps the order of array items significant', () => {
    expect(canonicalJson(['a', 'b'])).not.toBe(canonicalJson(['b', 'a']));
  });
});

describe('propertiesChanged', () => {
  const stored = { securityContext: { region: 'EU', tier: 2 }, groups: ['a', 'b'] };

  it('compares supplied properties as values', () => {
    expect(propertiesChanged(stored, { securityContext: { tier: 2, region: 'EU' } })).toBe(false);
    expect(propertiesChanged(stored, { securityContext: { tier: '2', region: 'EU' } })).toBe(true);
    expect(propertiesChanged(stored, { groups: ['b', 'a'] })).toBe(true);
  });

  it('ignores omitted properties and counts one supplied over an absent one as a change', () => {
    expect(propertiesChanged(stored, {})).toBe(false);
    expect(propertiesChanged(stored, { userAttributes: [] })).toBe(true);
  });
});

describe('mergeProperties', () => {
  it('replaces supplied properties whole and keeps omitted ones', () => {
    expect(
      mergeProperties(
        { securityContext: { a: 1, b: 2 }, groups: ['g'] },
        { securityContext: { a: 3 }, userAttributes: [{ name: 'n', value: 'v' }] },
      ),
    ).toEqual({ securityContext: { a: 3 }, groups: ['g'], userAttributes: [{ name: 'n', value: 'v' }] });
  });

  it('keeps only the set properties of a new recipient', () => {
    expect(suppliedProperties({ groups: undefined, securityContext: {} })).toEqual({ securityContext: {} });
  });
});
