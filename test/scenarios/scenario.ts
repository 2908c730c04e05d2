/**
 * A conversation for the offline extractor's scenario suite (issue 37): sessions of turns said
 * at given times, and what the real pipeline (ingest → seal → consolidate → project → query)
 * must yield from it with the default offline provider.
 */
export interface Scenario {
  name: string;
  /** One thread per session; each turn is one message of the named speaker. */
  sessions: { at: string; turns: [speaker: string, text: string][] }[];
  expect: {
    /** Events that must exist: matched on title + summary. */
    events?: EventExpectation[];
    /** `newer` supersedes `older` (the older one is superseded, `supersededBy` the newer). */
    supersedes?: { newer: RegExp; older: RegExp }[];
    /** `newer` marks `kind` with `older`: the same event told again, or a contradiction. */
    relations?: { newer: RegExp; older: RegExp; kind: 'same' | 'conflict' }[];
    /** Current facts of a node: `node` its name, `key`, and the value's pattern. */
    facts?: { node: string; key: string; value: RegExp }[];
    /** Current edges by node names. */
    edges?: { from: string; relation: string; to: string }[];
    /** Questions asked in a new session: the first event recall activates must match. */
    answers?: { question: string; expect: RegExp; not?: RegExp }[];
  };
}

export interface EventExpectation {
  match: RegExp;
  criticality?: 'routine' | 'preference' | 'identity' | 'safety';
  eventType?: string;
  status?: 'occurred' | 'planned' | 'cancelled' | 'ongoing' | 'unknown';
  happenedStart?: string;
  happenedEnd?: string;
  precision?: string;
  originalText?: string;
  participants?: string[];
}

/** Turn i of a session is said i minutes after the session starts. */
export function minutesAfter(at: string, minutes: number): string {
  return new Date(Date.parse(at) + minutes * 60_000).toISOString();
}
