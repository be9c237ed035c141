import * as z from 'zod/mini';
import { CURSOR_MAX_LENGTH } from '#lib/domain/paging';

/** The paging query of every list: `first` (1–200, default 100) and `after`, a previous page's cursor. */

const MAX_PAGE_SIZE = 200;
const DEFAULT_PAGE_SIZE = 100;

/** Query values arrive as text: digits only, then the range. */
const pageSize = z.pipe(
  z.string().check(
    z.describe(
      `Page size: a whole number from 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}); a larger one is refused (400). A page may hold fewer items when its JSON body would pass 1 MiB.`,
    ),
    z.regex(/^[0-9]{1,3}$/, `must be a whole number from 1 to ${MAX_PAGE_SIZE}`),
    z.refine(
      (digits) => Number(digits) >= 1 && Number(digits) <= MAX_PAGE_SIZE,
      `must be from 1 to ${MAX_PAGE_SIZE}`,
    ),
  ),
  z.transform((digits: string) => Number(digits)),
);

export const pagingQueryShape = {
  first: z._default(pageSize, DEFAULT_PAGE_SIZE),
  after: z.optional(
    z.string().check(z.minLength(1), z.maxLength(CURSOR_MAX_LENGTH, 'is not a cursor of this list')),
  ),
};

export const pagingQuery = z.strictObject(pagingQueryShape);

export const pageInfoOutput = z.object({
  startCursor: z.nullable(z.string()),
  endCursor: z.nullable(z.string()),
  hasNextPage: z.boolean(),
  hasPreviousPage: z.boolean(),
});

export const pageOf = <T extends z.ZodMiniType>(item: T) =>
  z.object({ items: z.array(item), pageInfo: pageInfoOutput });
