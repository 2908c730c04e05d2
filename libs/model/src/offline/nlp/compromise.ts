import nlp from 'compromise';

/**
 * compromise as the offline provider uses it, with one method replaced for speed (ADR 0037,
 * amendment): the sweep that runs its match patterns. Everything that tags with compromise
 * imports it from here, so the replacement is in place before the first document is parsed.
 *
 * compromise 14.17.0's sweep indexes its patterns by the words and tags they need
 * (`net.hooks`), then, for every clause, walks all of that index's keys (thousands) to find
 * the few the clause holds. That walk was the largest single cost of tagging a short sentence.
 * The replacement looks up the clause's own words and tags instead and then orders the keys
 * found as the walk would have met them, so the same patterns run in the same order and every
 * tag comes out the same (the unit test compares both on a corpus).
 */

/** The parts of compromise's internals the sweep touches, as far as this module reads them. */
export interface SweepTerm {
  readonly normal: string;
  readonly tags: ReadonlySet<string>;
}
export interface SweepPattern {
  readonly match: unknown;
  readonly needs: readonly string[];
  readonly wants: readonly string[];
  readonly ifNo?: readonly string[];
  /** Set by compromise's buildNet on every pattern. */
  readonly minWant?: number;
  readonly minWords?: number;
  readonly unTag?: unknown;
}
export interface SweepNet {
  readonly hooks: Readonly<Record<string, readonly SweepPattern[]>>;
  readonly always: readonly SweepPattern[];
}
type Pointer = [number, number, number];
export interface SweepMethods {
  one: {
    cacheDoc(document: readonly (readonly SweepTerm[])[]): ReadonlySet<string>[];
    match(document: readonly (readonly SweepTerm[])[], pattern: SweepPattern): { ptrs: Pointer[] };
  };
}
export type SweepFound = SweepPattern & { pointer: Pointer };
export type BulkMatch = (
  document: readonly (readonly SweepTerm[])[],
  net: SweepNet,
  methods: SweepMethods,
  opts?: { matchOne?: boolean },
) => SweepFound[];

/** compromise's own sweep, kept for the equivalence test. */
export const compromiseBulkMatch = (nlp.methods() as { one: { bulkMatch: BulkMatch } }).one
  .bulkMatch;

interface NetIndex {
  /** The hook keys in the order compromise walks them, and each key's place. */
  keys: string[];
  place: Map<string, number>;
  /** Patterns past de-duplication, needs and wants, by the set of hook keys a clause holds. */
  byKeys: Map<string, readonly SweepPattern[]>;
}
const netIndexes = new WeakMap<object, NetIndex>();
/** Distinct key sets remembered per net; clauses repeat them often (tags, common words). */
const KEY_SETS_MAX = 20_000;

function netIndex(hooks: SweepNet['hooks']): NetIndex {
  let index = netIndexes.get(hooks);
  if (!index) {
    // A net is built once and not changed afterwards (compromise builds a new one per call
    // of buildNet), so its keys are read once.
    const keys = Object.keys(hooks);
    index = { keys, place: new Map(keys.map((k, i) => [k, i])), byKeys: new Map() };
    netIndexes.set(hooks, index);
  }
  return index;
}

const hasAny = (haves: ReadonlySet<string>, items: readonly string[]) => {
  for (const item of items) if (haves.has(item)) return true;
  return false;
};
const countIn = (present: ReadonlySet<string>, items: readonly string[]) => {
  let n = 0;
  for (const item of items) if (present.has(item)) n += 1;
  return n;
};

/**
 * compromise's getHooks and the needs / wants half of its trimDown for one set of hook keys.
 * Every need and want is itself a hook key, so the result depends on that set alone.
 */
function hooked(index: NetIndex, hooks: SweepNet['hooks'], found: readonly number[]) {
  const present = new Set(found.map((at) => index.keys[at] as string));
  // compromise keeps the first pattern of each match text before it trims, so a pattern that
  // fails its needs still hides a later one with the same text.
  const seen = new Set<unknown>();
  const out: SweepPattern[] = [];
  for (const at of found) {
    for (const pattern of hooks[index.keys[at] as string] ?? []) {
      if (seen.has(pattern.match)) continue;
      seen.add(pattern.match);
      if (countIn(present, pattern.needs) < pattern.needs.length) continue;
      const { wants } = pattern;
      if (wants.length > 0 && !(countIn(present, wants) >= (pattern.minWant ?? Infinity))) continue;
      out.push(pattern);
    }
  }
  return out;
}

/** The patterns worth trying on one clause, in compromise's order (getHooks + trimDown). */
function candidates(
  haves: ReadonlySet<string>,
  net: SweepNet,
  terms: number,
): readonly SweepPattern[] {
  const index = netIndex(net.hooks);
  const found: number[] = [];
  for (const item of haves) {
    const at = index.place.get(item);
    if (at !== undefined) found.push(at);
  }
  found.sort((a, b) => a - b);
  const key = found.join(',');
  let patterns = index.byKeys.get(key);
  if (!patterns) {
    patterns = hooked(index, net.hooks, found);
    if (index.byKeys.size >= KEY_SETS_MAX) index.byKeys.clear();
    index.byKeys.set(key, patterns);
  }
  // ifNo may name words that are no hook key: it is read from the clause itself.
  const out: SweepPattern[] = [];
  for (const pattern of patterns) {
    if (pattern.ifNo && hasAny(haves, pattern.ifNo)) continue;
    if (terms >= (pattern.minWords ?? Infinity)) out.push(pattern);
  }
  for (const pattern of net.always) if (terms >= (pattern.minWords ?? Infinity)) out.push(pattern);
  return out;
}

export const indexedBulkMatch: BulkMatch = (document, net, methods, opts = {}) => {
  const caches = methods.one.cacheDoc(document);
  const results: SweepFound[] = [];
  for (const [n, terms] of document.entries()) {
    for (const pattern of candidates(caches[n] as ReadonlySet<string>, net, terms.length)) {
      const { ptrs } = methods.one.match([terms], pattern);
      for (const ptr of ptrs) {
        ptr[0] = n;
        results.push({ ...pattern, pointer: ptr });
      }
      if (ptrs.length > 0 && opts.matchOne === true) return results.slice(0, 1);
    }
  }
  return results;
};

nlp.plugin({ methods: { one: { bulkMatch: indexedBulkMatch } } });

export default nlp;
