import type { Notification } from '#lib/domain/notifications/notification';
import { notificationListLimits } from '#lib/limits';

/**
 * A notification's lists as large as the limits allow: every count at its limit, every text at its
 * length in '€' (3 bytes as JSON, the widest character the lists accept), and the filters' byte
 * budget filled to the byte by their list values (free-form, bounded by bytes only).
 */
export function largestLists(): Pick<Notification, 'filters' | 'timeGrains' | 'memberSwitchers'> {
  const { filters: f, timeGrains: g, memberSwitchers: m, memberPathLength } = notificationListLimits;
  const member = (prefix: string, i: number) => `Orders.${prefix}${i}`.padEnd(memberPathLength, '€');
  const values = Array.from({ length: f.items }, () => '');
  const filters = values.map((_, i) => ({
    member: member('m', i),
    operator: 'equals' as const,
    value: [values[i] as string],
  }));
  const room = f.bytes - Buffer.byteLength(JSON.stringify(filters));
  filters.forEach((filter, i) => {
    filter.value = ['v'.repeat(Math.floor(room / f.items) + (i === 0 ? room % f.items : 0))];
  });
  return {
    filters,
    timeGrains: Array.from({ length: g.items }, (_, i) => ({
      member: member('g', i),
      grain: '€'.repeat(g.grainLength),
    })),
    memberSwitchers: Array.from({ length: m.items }, (_, i) => ({
      member: member('s', i),
      selected: '€'.repeat(m.selectedLength),
    })),
  };
}
