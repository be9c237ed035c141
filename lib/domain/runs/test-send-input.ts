/** What a test send names: a leaf module, so that request schemas need none of the send's own code. */

export const MAX_TEST_RECIPIENTS = 10;

/** A console user, by id or e-mail (or both, which must agree), as an add-recipients item names one. */
export interface TestRecipientInput {
  type?: 'USER';
  userId?: number;
  email?: string;
}
