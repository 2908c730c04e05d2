import type { ExtractedEvent } from './extraction.schema.ts';
import type { GraphSourceEvent } from './graph.schema.ts';

/**
 * Extracted events as the graph proposer reads them, for running extraction and graph in a row
 * without a store (the offline provider's golden spec and bench). `ids` names each event.
 */
export function graphSourceEventsOf(
  events: readonly ExtractedEvent[],
  ids: readonly string[],
): GraphSourceEvent[] {
  return events.map((e, i) => ({
    id: ids[i]!,
    title: e.title,
    summary: e.summary,
    tags: e.tags,
    scope: e.scope,
    eventType: e.temporal.eventType,
    participants: e.temporal.participants,
    sourceTime: e.temporal.happenedStart ?? e.temporal.mentionedAt ?? '',
  }));
}
