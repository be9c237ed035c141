import { describe, expect, it } from 'vitest';
import { callerOf } from '#lib/http/caller';
import { principals } from '#test/support/domain-fixtures';

describe('callerOf', () => {
  it('names a console user by id, the platform by session and an embed user by tenant and external id', () => {
    expect(callerOf(principals.admin)).toBe('USER#1');
    expect(callerOf(principals.creator)).toBe('PLATFORM#creator');
    expect(callerOf(principals.acme)).toBe('EMBED#acme#alice');
  });
});
