import type { RecordMetadata } from './envelope.ts';

/**
 * Whose key seals what (ADR 0046). A record's content is encrypted before it reaches the log, under
 * the key of the narrowest thing its owner may ask to erase: its thread, or the space. A memory
 * event's content is sealed once more under the event's own key, so one event can be erased while
 * the rest of its record stays readable. Erasing deletes keys; a record, or part of one, whose key
 * is gone can no longer be read by anyone, wherever its bytes are (a Kafka topic, a backup).
 */
export type SealingSubject = 'space' | `thread:${string}` | `event:${string}`;

export const threadSubject = (threadId: string): SealingSubject => `thread:${threadId}`;
export const eventSubject = (eventId: string): SealingSubject => `event:${eventId}`;

/**
 * A part of a record's data sealed under its own keys: readable while any of them exists, or with
 * `need: 'all'` only while every one of them does.
 */
export interface SealedPart {
  /** Where in `data`: property names and array indexes; `[]` is the whole data. */
  path: readonly (string | number)[];
  subjects: readonly SealingSubject[];
  need?: 'any' | 'all';
  /**
   * The space of the same tenant whose subjects these are, when not the record's own: a profile
   * record (its own stream) sealed under the key of the conversation it came from.
   */
  space?: string;
  /** Once its keys are gone the part reads as null; without it the whole record reads as erased. */
  orNull?: true;
}

export interface SealingPlan {
  /** The key of the whole record; null: stored in clear (an erasure's own record). */
  outer: SealingSubject | null;
  /** Parts sealed again inside, innermost last is not required: paths never overlap. */
  parts: readonly SealedPart[];
}

type Json = Record<string, unknown>;

const ids = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** Every memory event a graph operation draws on (its content came from them). */
function operationSources(op: Json): string[] {
  const fromList = (list: unknown) =>
    Array.isArray(list) ? list.flatMap((x) => ids((x as Json | null)?.sourceEventIds)) : [];
  switch (op.op) {
    case 'node.create': {
      const node = (op.node ?? {}) as Json;
      return [
        ...ids(node.sourceEventIds),
        ...ids(node.nameSourceEventIds),
        ...fromList(node.aliases),
        ...fromList(node.tags),
      ];
    }
    case 'node.update':
      return [...ids(op.addSourceEventIds), ...fromList(op.addAliases), ...fromList(op.addTags)];
    case 'fact.add':
      return ids(((op.fact ?? {}) as Json).sourceEventIds);
    case 'edge.add':
      return ids(((op.edge ?? {}) as Json).sourceEventIds);
    default:
      // Supersede and dispute operations name ids only: nothing of an event's content.
      return [];
  }
}

const subjectsOf = (eventIds: readonly string[]): SealingSubject[] =>
  [...new Set(eventIds)].map(eventSubject);

/**
 * The sealing plan of a record, from its type, data and metadata. Unknown types (a newer writer)
 * are sealed whole under their thread or the space.
 */
export function sealingPlan(type: string, data: unknown, metadata: RecordMetadata): SealingPlan {
  if (type === 'ContentErased') return { outer: null, parts: [] };
  const outer: SealingSubject = metadata.threadId ? threadSubject(metadata.threadId) : 'space';
  const d = (data ?? {}) as Json;
  switch (type) {
    case 'MemoryEventsExtracted':
      return {
        outer,
        parts: (Array.isArray(d.events) ? d.events : []).flatMap((event, i) => {
          const id = (event as Json | null)?.id;
          return typeof id === 'string'
            ? [{ path: ['events', i], subjects: [eventSubject(id)] }]
            : [];
        }),
      };
    case 'ExternalMemoryImported': {
      // Each new event, and the decision that wrote it, can be erased on its own.
      const parts: SealedPart[] = [];
      (Array.isArray(d.events) ? d.events : []).forEach((event, i) => {
        const id = (event as Json | null)?.id;
        if (typeof id === 'string')
          parts.push({ path: ['events', i], subjects: [eventSubject(id)] });
      });
      (Array.isArray(d.decisions) ? d.decisions : []).forEach((decision, i) => {
        const id = (decision as Json | null)?.eventId;
        if (typeof id === 'string')
          parts.push({ path: ['decisions', i], subjects: [eventSubject(id)] });
      });
      return { outer, parts };
    }
    case 'AgentMemoryRecorded': {
      // The agent's words are the event: erasing the event takes the whole call with it.
      const event = (d.event as Json | null)?.id;
      const id = typeof event === 'string' ? event : d.reinforcedEventId;
      return {
        outer,
        parts: typeof id === 'string' ? [{ path: [], subjects: [eventSubject(id)] }] : [],
      };
    }
    case 'GraphProjected': {
      const parts: SealedPart[] = [];
      (Array.isArray(d.operations) ? d.operations : []).forEach((op, i) => {
        const sources = operationSources((op ?? {}) as Json);
        if (sources.length > 0)
          parts.push({ path: ['operations', i], subjects: subjectsOf(sources) });
      });
      const batch = subjectsOf(ids(d.eventIds));
      (Array.isArray(d.warnings) ? d.warnings : []).forEach((_w, i) => {
        if (batch.length > 0) parts.push({ path: ['warnings', i], subjects: batch });
      });
      return { outer, parts };
    }
    case 'TopicsBuilt': {
      // A chapter quotes and summarises its members: erasing any one of them erases the chapter.
      const parts: SealedPart[] = [];
      (Array.isArray(d.topics) ? d.topics : []).forEach((topic, i) => {
        const t = (topic ?? {}) as Json;
        const listed = (list: unknown) =>
          Array.isArray(list) ? list.flatMap((x) => ids((x as Json | null)?.sourceEventIds)) : [];
        const cited = subjectsOf([
          ...ids(t.sourceEventIds),
          ...listed(t.sections),
          ...listed(t.paragraphs),
        ]);
        if (cited.length > 0) parts.push({ path: ['topics', i], subjects: cited, need: 'all' });
      });
      return { outer, parts };
    }
    case 'ProfileChangeProposed': {
      // Made in a conversation: the proposal, its value and the words it quotes go with it.
      const origin = d.origin as Json | null | undefined;
      return {
        outer,
        parts: conversationOf(origin).map((c) => ({ path: [], ...c })),
      };
    }
    case 'ProfileFieldChanged': {
      // The setting stays the user's; where it was said goes with the conversation.
      const origin = d.origin as Json | null | undefined;
      return {
        outer,
        parts: conversationOf(origin).flatMap((c) =>
          ['sourceMessageId', 'origin', 'proposalId'].map((field) => ({
            path: [field],
            ...c,
            orNull: true as const,
          })),
        ),
      };
    }
    default:
      return { outer, parts: [] };
  }
}

/** The key of the thread a profile record came from, in its own space, if it names one. */
function conversationOf(
  origin: Json | null | undefined,
): { subjects: SealingSubject[]; space: string }[] {
  const spaceId = origin?.spaceId;
  const threadId = origin?.threadId;
  return typeof spaceId === 'string' && typeof threadId === 'string'
    ? [{ subjects: [threadSubject(threadId)], space: spaceId }]
    : [];
}
