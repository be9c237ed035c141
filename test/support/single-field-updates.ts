/**
 * `count` bodies of a notification update, each setting one field, five fields in turn: sent at once,
 * they test that concurrent updates lose none (the tests and the bench's concurrency scenario).
 */
export const singleFieldUpdates = (count: number) =>
  Array.from({ length: count }, (_, i) => {
    const even = i % 2 === 0;
    const bodies = [
      { minute: i },
      { hour: i % 24 },
      { isEnabled: even },
      { notificationFormat: even ? 'pdf' : 'png' },
      { timezone: even ? 'Asia/Tokyo' : 'UTC' },
    ];
    return bodies[i % bodies.length];
  });
