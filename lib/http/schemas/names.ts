import * as z from 'zod/mini';
import { fitsKeyPart, KEY_PART_MAX_BYTES } from '#lib/limits';

/**
 * Names, key names and positive ids as the notification and recipient schemas check them; apart from
 * lib/http/schemas/common.ts, which every function holds, since a key name needs the key limits.
 */

const MAX_NAME_LENGTH = 1000;

/** A name: 1 to `max` characters of valid Unicode. */
export const name = (max: number = MAX_NAME_LENGTH) =>
  z.string().check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(max, `must be at most ${max} characters`),
    z.refine((value: string) => value.isWellFormed(), 'must be valid Unicode text'),
  );

/** Text that becomes a key part (a lookup by it): the key module bounds its URL-encoded form. */
export const keyName = (max: number = MAX_NAME_LENGTH) =>
  name(max).check(
    z.refine(
      (value: string) => !value.isWellFormed() || fitsKeyPart(value),
      `must be at most ${KEY_PART_MAX_BYTES} characters once URL-encoded`,
    ),
  );
export const positiveInt = () =>
  z.int('must be a positive integer').check(z.gte(1, 'must be a positive integer'));
