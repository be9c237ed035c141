import { describe, expect, it } from 'vitest';
import { notificationLocation } from '#lib/http/locations';

describe('notificationLocation', () => {
  it("is the notification's path under its deployment", () => {
    expect(notificationLocation({ deploymentId: 7, id: 700 })).toBe('/v1/deployments/7/notifications/700');
  });
});
