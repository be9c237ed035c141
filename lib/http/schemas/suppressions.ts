import * as z from 'zod/mini';
import { emailFitsKey, tooLongEncoded } from '#lib/domain/recipients/recipients-input';
import { isEmail } from '#lib/domain/recipients/recipients-resolution';
import { pathId, wellFormedTextUpTo } from '#lib/http/schemas/common';
import { pagingQueryShape } from '#lib/http/schemas/paging';

/** Requests of the suppression routes (their answers are in suppression-outputs.ts). */

const MAX_EMAIL_LENGTH = 320;

/** An address as a key: any text up to the bound; the domain compares it lower-cased. */
const emailKey = () => wellFormedTextUpTo(MAX_EMAIL_LENGTH).check(z.refine(emailFitsKey, tooLongEncoded));

export const listSuppressionsQuery = z.strictObject({
  ...pagingQueryShape,
  email: z.optional(emailKey()),
});

/** An admin suppresses an address: it must be one. */
export const addSuppressionInput = z.strictObject({
  email: emailKey().check(z.refine(isEmail, 'is not a valid e-mail address')),
});

/** An address not suppressed, of whatever form, is a 404: there is no such suppression. */
export const suppressionPath = z.strictObject({ deploymentId: pathId, email: emailKey() });
