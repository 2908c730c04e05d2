import { z } from 'zod';

/*
 * Integer shapes of the wire contract with bounds that mean something. A request integer always
 * has its own minimum and maximum (a page size, an offset, a setting's range). An answer's integer
 * that grows with the log (a position, a version, a turn number, a count) has a minimum and no
 * maximum: the only one there is would be JSON's 2^53, which says nothing about the value.
 */

/** A non-negative integer that grows with the log, at least `min`; `description` says which. */
export function counter(description: string, min = 0) {
  return z.number().int().min(min).meta({ maximum: undefined, description });
}

/** A block level: 0 title and tags, 1 summary, 2 key points, 3 condensed, 4 readable, 5 raw. */
export const LevelNumber = z
  .number()
  .int()
  .min(0)
  .max(5)
  .describe('0 title+tags, 1 summary, 2 key points, 3 condensed, 4 readable, 5 raw');

/** An offset into a listing, for paging (query string). */
export const PageOffset = z.coerce
  .number()
  .int()
  .min(0)
  .max(100_000)
  .default(0)
  .describe('items to skip (0–100,000)');

/** The number of items a page holds at most (query string), from 1 to `max`. */
export function pageLimit(max: number, fallback: number) {
  return z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .describe(`items per page (1–${max}, default ${fallback})`);
}

/** A count, a size or a number that grows with the log (see `counter`), without a description. */
export const Count = z.number().int().min(0).meta({ maximum: undefined });
