import { takeCodePoints as cutCodePoints } from '../blocks/tokens.ts';
import { validCatalogHints } from './catalog-hints.ts';
import { MemoryEventCard, type Temporal } from './memory-event.ts';
import { repairTemporal } from './temporal-repair.ts';

/** What an extractor proposed for one event, before admission (shape of the model output). */
export interface ProposedEvent {
  title: string;
  summary: string;
  tags: string[];
  quotes: string[];
  sourceMessageIds: string[];
  scope: 'user' | 'project' | 'session';
  criticality: 'routine' | 'preference' | 'identity' | 'safety';
  temporal: unknown;
  relations?: {
    sameEventId?: string | undefined;
    supersedesEventIds?: string[];
    conflictsWithEventIds?: string[];
    relatedEventIds?: string[];
  };
  catalogHints?: unknown;
}

export interface AdmissionContext {
  blockId: string;
  threadId: string;
  /** The target block's L5 message ids, in order. */
  blockMessageIds: string[];
  /** Time of each block message (mentionedAt default). */
  messageTimes: Record<string, string>;
  /** Timeline ids still active or superseded at commit (MM-EVT-15). */
  linkableEventIds: ReadonlySet<string>;
  formedTurn: number;
  extractorVersion?: number;
  newEventId: () => string;
}

/**
 * MM-EVT-15/16/17: cited ids are filtered to the block (none left → all of its messages), a
 * missing mention time becomes the time of the first cited message, relations may only name
 * linkable timeline events (others, and self, dropped; duplicates removed), identical cards merge
 * uniting sources and tags, and text limits are cut.
 */
export function admitEvents(proposed: ProposedEvent[], ctx: AdmissionContext): MemoryEventCard[] {
  const inBlock = new Set(ctx.blockMessageIds);
  const merged = new Map<string, MemoryEventCard>();
  for (const p of proposed) {
    const cited = unique(p.sourceMessageIds.filter((id) => inBlock.has(id)));
    const sources = cited.length > 0 ? cited : [...ctx.blockMessageIds];
    const temporal = repairTemporal(p.temporal);
    const rel = p.relations ?? {};
    const linkable = (id: unknown): id is string =>
      typeof id === 'string' && ctx.linkableEventIds.has(id);
    const withRelations: Temporal = {
      ...temporal,
      mentionedAt: temporal.mentionedAt ?? ctx.messageTimes[sources[0]!],
      threadId: ctx.threadId,
      sameEventId: linkable(rel.sameEventId)
        ? rel.sameEventId
        : linkable(temporal.sameEventId)
          ? temporal.sameEventId
          : undefined,
      supersedesEventIds: unique(
        [...(rel.supersedesEventIds ?? []), ...temporal.supersedesEventIds].filter(linkable),
      ),
      conflictsWithEventIds: unique(
        [...(rel.conflictsWithEventIds ?? []), ...temporal.conflictsWithEventIds].filter(linkable),
      ),
      relatedEventIds: unique(
        [...(rel.relatedEventIds ?? []), ...temporal.relatedEventIds].filter(linkable),
      ),
    };
    if (withRelations.sameEventId === undefined) delete withRelations.sameEventId;
    if (withRelations.mentionedAt === undefined) delete withRelations.mentionedAt;
    const title = cutCodePoints(p.title.trim(), 240);
    const summary = cutCodePoints(p.summary.trim(), 2000);
    if (title === '' || summary === '') continue;
    // Identity is the card as proposed (MM-EVT-16), before defaults derived from its sources.
    const key = JSON.stringify([title, summary, p.scope, p.criticality, temporal]);
    const existing = merged.get(key);
    if (existing) {
      existing.sourceMessageIds = unique([...existing.sourceMessageIds, ...sources]);
      existing.tags = unique([...existing.tags, ...cleanList(p.tags, 80)]).slice(0, 12);
      continue;
    }
    merged.set(
      key,
      MemoryEventCard.parse({
        id: ctx.newEventId(),
        title,
        summary,
        tags: unique(cleanList(p.tags, 80)).slice(0, 12),
        quotes: unique(cleanList(p.quotes, 500)).slice(0, 12),
        sourceMessageIds: sources,
        sourceBlockId: ctx.blockId,
        scope: p.scope,
        criticality: p.criticality,
        temporal: withRelations,
        catalogHints: validCatalogHints(p.catalogHints),
        ...(ctx.extractorVersion ? { extractorVersion: ctx.extractorVersion } : {}),
        formedTurn: ctx.formedTurn,
      }),
    );
  }
  return [...merged.values()];
}

function cleanList(values: unknown, max: number): string[] {
  if (!Array.isArray(values)) return [];
  return values
    .filter((v): v is string => typeof v === 'string')
    .map((v) => cutCodePoints(v.trim(), max))
    .filter((v) => v !== '');
}

const unique = <T>(xs: T[]): T[] => [...new Set(xs)];
