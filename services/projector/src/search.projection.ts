import type { Kysely } from 'kysely';
import {
  docTermFrequencies,
  memoTokenizer,
  timeFieldText,
  type MemoryEventCard,
  type Tokenizer,
  type WeightedField,
} from '@stratagate/domain';
import {
  eventDocKind,
  replaceSearchDocs,
  SEALED_MESSAGE_STATUS,
  setSearchDocStatus,
  writeSearchDocs,
  type SearchSpace,
} from '@stratagate/store';

/**
 * Search index maintenance, called by the core projection inside its transaction (`rm`, any
 * Kysely handle on the read-model database; the tables are addressed as `<schema>.search_*`).
 * Terms and lengths come from the domain's `docTermFrequencies`, so the index holds exactly the
 * numbers the reference BM25 computes. Every function is idempotent under redelivery: a document
 * already indexed is left alone, and stats only count rows that were really inserted or changed.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Rm = Kysely<any>;

export interface IndexedMessage {
  messageId: string;
  threadId: string;
  blockId: string;
  content: string;
  /** Who said it (the message's speaker name), when known. */
  speaker?: string | null;
  /** The thread's message before this one: what a reply answers. */
  previous?: string | null;
  /** The thread's message after this one, once it is sealed: the reply. */
  next?: string | null;
  createdAt: string;
}

export interface IndexedEvent {
  id: string;
  threadId: string | null;
  blockId: string | null;
  createdAt: string;
  /** MM-RET-3 fields with their weights (title ×4, summary ×3, …), supplied by the caller. */
  fields: readonly WeightedField[];
  /** Initial status; default 'active'. */
  status?: string;
  /** Default 'extracted'; agent events (MM-REM) are indexed and ranked as their own pool. */
  pool?: 'extracted' | 'agent';
}

/**
 * Raw search fields of a sealed message (MM-RET-6): its content at weight 2; at weight 1 the
 * speaker's name, so "what did Caroline say about …" prefers Caroline's own messages, and the
 * thread's messages on either side, because a reply ("a sunset, with a lake") often only makes
 * sense with what it answers ("what did you paint?"), and a question is often answered by the
 * message after it; and the message's time as calendar terms ("… in July 2023"). The hit is
 * still the message itself.
 */
export function rawMessageSearchFields(
  m: Pick<IndexedMessage, 'content' | 'speaker' | 'previous' | 'next' | 'createdAt'>,
): WeightedField[] {
  return [
    { text: m.content, weight: 2 },
    { text: m.speaker ?? '', weight: 1 },
    { text: m.previous ?? '', weight: 1 },
    { text: m.next ?? '', weight: 1 },
    { text: m.createdAt, weight: 1, kind: 'time' },
  ];
}

const messageDoc = (m: IndexedMessage, tokens: Tokenizer = memoTokenizer()) => ({
  docId: m.messageId,
  threadId: m.threadId,
  blockId: m.blockId,
  createdAt: m.createdAt,
  status: SEALED_MESSAGE_STATUS,
  ...docTermFrequencies(rawMessageSearchFields(m), tokens),
});

/** Indexes sealed L5 messages. Returns how many were new. */
export async function indexMessages(
  rm: Rm,
  schema: string,
  space: SearchSpace,
  messages: readonly IndexedMessage[],
  // Each message is also its neighbours' context: tokenized once.
  tokens: Tokenizer = memoTokenizer(),
): Promise<number> {
  return writeSearchDocs(
    rm,
    schema,
    space,
    'message',
    messages.map((m) => messageDoc(m, tokens)),
  );
}

/**
 * Re-indexes sealed messages whose next message was sealed after them (a block's last message,
 * once the thread's next block is sealed), now with that reply as context. The bounds of the
 * term statistics are kept: the new documents only add text, and recomputing them would read
 * every posting of each frequent term. Idempotent: the same input gives the same documents.
 */
export async function reindexMessages(
  rm: Rm,
  schema: string,
  space: SearchSpace,
  messages: readonly IndexedMessage[],
  tokens: Tokenizer = memoTokenizer(),
): Promise<void> {
  if (messages.length === 0) return;
  await replaceSearchDocs(rm, schema, space, 'message', {
    docIds: messages.map((m) => m.messageId),
    docs: messages.map((m) => messageDoc(m, tokens)),
    bounds: 'keep',
  });
}

/**
 * MM-RET-3 BM25 fields of a memory event: title ×4, summary ×3, tags ×2, quotes ×2,
 * participants ×5, eventType ×5, originalText ×4, happenedStart + happenedEnd ×4, and the times
 * of its mention and occurrence as calendar terms ×1. List fields are
 * joined with spaces (tokens never span a space, so this equals indexing each item).
 */
export function memoryEventSearchFields(e: MemoryEventCard): WeightedField[] {
  const t = e.temporal;
  return [
    { text: e.title, weight: 4 },
    { text: e.summary, weight: 3 },
    { text: e.tags.join(' '), weight: 2 },
    { text: e.quotes.join(' '), weight: 2 },
    { text: t.participants.join(' '), weight: 5 },
    { text: t.eventType, weight: 5 },
    { text: t.originalText ?? '', weight: 4 },
    { text: [t.happenedStart, t.happenedEnd].filter(Boolean).join(' '), weight: 4 },
    // When it was said and when it happened, as calendar terms ("… in July 2023").
    {
      text: [timeFieldText(t.mentionedAt), timeFieldText(t.happenedStart, t.happenedEnd)].join(' '),
      weight: 1,
      kind: 'time',
    },
  ];
}

/** Indexes memory events with their weighted fields, each in its pool. Returns how many were new. */
export async function indexEvents(
  rm: Rm,
  schema: string,
  space: SearchSpace,
  events: readonly IndexedEvent[],
): Promise<number> {
  let inserted = 0;
  for (const pool of ['extracted', 'agent'] as const) {
    const docs = events.filter((e) => (e.pool ?? 'extracted') === pool);
    if (docs.length === 0) continue;
    inserted += await writeSearchDocs(
      rm,
      schema,
      space,
      eventDocKind(pool),
      docs.map((e) => ({
        docId: e.id,
        threadId: e.threadId,
        blockId: e.blockId,
        createdAt: e.createdAt,
        status: e.status ?? 'active',
        ...docTermFrequencies(e.fields),
      })),
    );
  }
  return inserted;
}

/**
 * Records an event's new status (superseded, forgotten, archived, or active again on restore).
 * Postings are kept and queries filter by status, so a restore needs no re-tokenising; the
 * search_stats buckets move with the document. Pass the status the memory_events row ended with.
 * Returns how many documents changed (0 on redelivery).
 */
export async function setEventStatus(
  rm: Rm,
  schema: string,
  space: SearchSpace,
  eventId: string | readonly string[],
  status: string,
): Promise<number> {
  const ids = typeof eventId === 'string' ? [eventId] : eventId;
  // An event id lives in one pool; the other statement finds nothing to change.
  const extracted = await setSearchDocStatus(rm, schema, space, 'event', ids, status);
  return extracted + (await setSearchDocStatus(rm, schema, space, 'agent_event', ids, status));
}
