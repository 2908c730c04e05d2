import { takeCodePoints } from '@stratagate/domain';

/**
 * How much conversation text one answer carries at most, so that a thread holding one huge turn
 * cannot make recall or a listing answer megabytes. Each block view or message is cut to
 * `itemChars` code points; a section (the blocks, the open tail) keeps its newest items within
 * `sectionBytes` of UTF-8 text and leaves the older ones out. The answer says what was cut and
 * left out, and where the whole text is read (a block at its level, one item at a time).
 */
export const TEXT_BOUNDS = { itemChars: 4_000, sectionBytes: 64 * 1024 } as const;

/** Where the whole text of a cut or left-out item is read, as answers say it. */
export const BOUNDS_REST =
  'a block reads whole at any level with GET /v1/spaces/{spaceId}/blocks/{blockId}?level=L5; older blocks are in GET /v1/spaces/{spaceId}/threads/{threadId}/context; closing the thread seals the open tail into a block';

export interface SectionBounds {
  itemChars: number;
  sectionBytes: number;
}

export interface BoundedSection<T> {
  /** The items kept, oldest first, texts cut where they were longer than `itemChars`. */
  items: T[];
  /** Ids of the kept items whose text was cut. */
  cut: string[];
  /** Older items left out to stay within `sectionBytes`. */
  omitted: number;
}

/**
 * Bounds a section given oldest first: walks it newest first, cuts each text to `itemChars` and
 * keeps items while their texts fit `sectionBytes` together; the rest (the oldest) is left out.
 */
export function boundSection<T>(
  items: readonly T[],
  item: { id: (t: T) => string; text: (t: T) => string; withText: (t: T, text: string) => T },
  bounds: SectionBounds = TEXT_BOUNDS,
): BoundedSection<T> {
  const kept: T[] = [];
  const cut: string[] = [];
  let bytes = 0;
  let index = items.length - 1;
  for (; index >= 0; index--) {
    const t = items[index]!;
    const text = item.text(t);
    const shortened = takeCodePoints(text, bounds.itemChars);
    const size = Buffer.byteLength(shortened, 'utf8');
    if (bytes + size > bounds.sectionBytes) break;
    bytes += size;
    if (shortened.length < text.length) {
      cut.push(item.id(t));
      kept.push(item.withText(t, shortened));
    } else {
      kept.push(t);
    }
  }
  return { items: kept.reverse(), cut: cut.reverse(), omitted: index + 1 };
}
