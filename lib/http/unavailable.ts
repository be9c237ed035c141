import type { RepeatEffect } from '#lib/routes';

/**
 * What a 503 tells the caller to do, by what a repeat of the route's request does (lib/routes.ts,
 * `repeat`): "safe to repeat" only where a repeat cannot act twice. The error handler and the local
 * server's own route timeout both answer with it.
 */
const repeatAdvice: Record<RepeatEffect, string> = {
  safe: 'the request is safe to repeat',
  'safe-then-not-found': 'the request is safe to repeat (a repeat answers 404 if this one was done)',
  'with-key':
    'it may have been done: repeat it with the same Idempotency-Key header so that it is not done twice ' +
    '(without one, a repeat may do it again)',
  'look-first': 'it may have been done: look before repeating it (a repeat does it again)',
};

/** A request that carried its Idempotency-Key is repeated with it safely. */
const keyedAdvice = 'the request is safe to repeat with the same Idempotency-Key header';

/**
 * A 503's message: why the request failed, then what a repeat of it does (`keyed`: the request
 * carried an Idempotency-Key).
 */
export const unavailableMessage = (reason: string, repeat: RepeatEffect, keyed = false): string =>
  `${reason}; ${repeat === 'with-key' && keyed ? keyedAdvice : repeatAdvice[repeat]}`;
