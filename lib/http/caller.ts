import type { Principal } from '#lib/domain/principal';

/** A stable name for whoever calls, to scope what is remembered per caller (Idempotency-Keys). */
export function callerOf(principal: Principal): string {
  if (principal.kind === 'console') return `USER#${principal.user.id}`;
  if (principal.kind === 'platform') return `PLATFORM#${principal.session}`;
  return `EMBED#${principal.tenant}#${principal.externalId}`;
}
