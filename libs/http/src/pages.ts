import { z } from 'zod';

/**
 * The most bytes of JSON the items of one list answer take together. Item bounds alone do not
 * bound an answer: a page of 200 memory events or 100 graph nodes, each within its own limits,
 * can still reach megabytes (a node's facts and edges grow with the conversation).
 */
export const LIST_BYTES = 1024 * 1024;

export interface BoundedItems<T> {
  /** The first items, in order, that fit together within the byte bound (at least one). */
  items: T[];
  /** Whether items were left out to stay within the bound. */
  truncated: boolean;
}

/**
 * The leading items of a list answer that fit within `maxBytes` of JSON. The first item is always
 * kept, so that paging moves on; its own size is bounded by what the API takes in.
 */
export function withinBytes<T>(items: readonly T[], maxBytes = LIST_BYTES): BoundedItems<T> {
  let bytes = 0;
  for (let i = 0; i < items.length; i++) {
    bytes += Buffer.byteLength(JSON.stringify(items[i]) ?? '', 'utf8');
    if (bytes > maxBytes && i > 0) return { items: items.slice(0, i), truncated: true };
  }
  return { items: [...items], truncated: false };
}

/**
 * One page of a listing read with one row more than `limit` (to know whether there is a next),
 * bounded in bytes: the items, `nextOffset` where the next page starts (sooner when the page
 * stopped at the byte bound) and `truncated`.
 */
export function boundedPage<T>(
  rows: readonly T[],
  page: { limit: number; offset: number },
  maxBytes = LIST_BYTES,
): BoundedItems<T> & { nextOffset: number | null } {
  const { items, truncated } = withinBytes(rows.slice(0, page.limit), maxBytes);
  const more = truncated || rows.length > page.limit;
  return { items, truncated, nextOffset: more ? page.offset + items.length : null };
}

/** The `truncated` flag of a list answer, as the API document shows it. */
export const Truncated = z
  .boolean()
  .describe(
    `true when items were left out to keep the list within ${LIST_BYTES / 1024 / 1024} MiB of JSON; a page's \`nextOffset\` then starts at the first one left out`,
  );
