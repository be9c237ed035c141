import { describe, expect, it } from 'vitest';
import { covers, departures, type PlatformFacts } from '#test/support/platform-compat';
import document from '../../lib/openapi/openapi.json' with { type: 'json' };
import facts from '../fixtures/platform-operations.json' with { type: 'json' };

/**
 * A client written for the platform works here: the description (GET /v1/spec) is compared field by
 * field with the platform's published facts, and only the deliberate differences listed with them
 * (and explained in docs/api.md) may remain.
 */

const platform = facts as unknown as PlatformFacts;

describe('the API description against the platform', () => {
  const found = departures(platform, document);

  it('departs from it only where a deliberate difference is listed', () => {
    const unlisted = found.filter(
      (departure) => !platform.differences.some((listed) => covers(listed.where, departure)),
    );
    expect(unlisted).toEqual([]);
  });

  it('lists no difference that is no longer there', () => {
    const stale = platform.differences.filter(
      (listed) => !found.some((departure) => covers(listed.where, departure)),
    );
    expect(stale).toEqual([]);
  });

  it('serves every operation of the platform that it describes', () => {
    expect(found.filter((departure) => departure.endsWith('not served'))).toEqual([]);
    expect(platform.operations).toHaveLength(10);
  });

  it('finds a departure when there is one (the comparison can fail)', () => {
    const broken = structuredClone(document) as typeof document & {
      components: { schemas: Record<string, never> };
    };
    const dto = broken.components.schemas.NotificationDto as unknown as {
      required: string[];
      properties: Record<string, unknown>;
    };
    dto.required = dto.required.filter((name) => name !== 'notificationAiSummary');
    delete dto.properties.memberSwitchers;
    const update = broken.components.schemas.UpdateNotificationInput as unknown as {
      properties: Record<string, unknown>;
    };
    delete update.properties.notificationAiSummary;
    const problems = departures(platform, broken);
    expect(problems).toEqual(
      expect.arrayContaining([
        'NotificationDto.notificationAiSummary: not always answered',
        'UpdateNotificationInput.notificationAiSummary: refused (unknown field)',
      ]),
    );
  });
});
