import { rrfFuse, type FusedId } from './rrf.ts';

export type TemporalIntent = 'first' | 'latest';

export interface StructuredItem {
  id: string;
  /** Epoch ms of the event's source time; null when it has none. The caller parses ISO instants. */
  chronology: number | null;
  /** Effective weight (MM-WGT-1), already computed for the current turn. */
  effectiveWeight: number;
  /** Epoch ms of the last update. */
  updatedAt: number;
}

/**
 * MM-RET-4 structured order: `first` ascending chronology, `latest` descending, otherwise
 * effective weight then `updatedAt`, both descending. Items without a time go last for either
 * intent (they can answer neither "first" nor "latest"); id breaks every remaining tie.
 */
export function structuredOrder(
  items: readonly StructuredItem[],
  intent?: TemporalIntent,
): string[] {
  return [...items]
    .sort((a, b) => compareItems(a, b, intent) || compareIds(a.id, b.id))
    .map((i) => i.id);
}

function compareItems(a: StructuredItem, b: StructuredItem, intent?: TemporalIntent): number {
  if (intent === undefined) {
    return b.effectiveWeight - a.effectiveWeight || b.updatedAt - a.updatedAt;
  }
  if (a.chronology === null || b.chronology === null) {
    return (a.chronology === null ? 1 : 0) - (b.chronology === null ? 1 : 0);
  }
  switch (intent) {
    case 'first':
      return a.chronology - b.chronology;
    case 'latest':
      return b.chronology - a.chronology;
    default:
      return assertNever(intent);
  }
}

export interface FusionPlanInput {
  /** Unique query terms > 0: the query is lexical even when nothing matched it. */
  lexicalQuery: boolean;
  /** BM25 hit ids, best first. */
  bm25: readonly string[];
  /** Each active filter's matching ids, in structured order. Empty when no filter is set. */
  filterLists: readonly (readonly string[])[];
  /** Ids meeting every filter, in structured order. */
  meetingAll: readonly string[];
  /** Every candidate in structured order, for browsing without query or filter. */
  browse: readonly string[];
}

/**
 * MM-RET-4 fusion plan. When some events satisfy every filter the result is restricted to them,
 * with BM25 only re-ordering; when none do, filters and BM25 each vote so a partial match still
 * surfaces instead of an empty page. Scores order only (MM-GEN-10).
 */
export function planFusion(input: FusionPlanInput): FusedId[] {
  const { lexicalQuery, bm25, filterLists, meetingAll, browse } = input;
  if (filterLists.length === 0) {
    if (lexicalQuery) return rrfFuse([{ ids: bm25 }]);
    return rrfFuse([{ ids: browse }]);
  }
  if (meetingAll.length > 0) {
    const allowed = new Set(meetingAll);
    return rrfFuse([{ ids: bm25.filter((id) => allowed.has(id)) }, { ids: meetingAll }]);
  }
  return rrfFuse([{ ids: bm25 }, ...filterLists.map((ids) => ({ ids }))]);
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function assertNever(value: never): never {
  throw new Error(`unhandled temporal intent ${String(value)}`);
}
