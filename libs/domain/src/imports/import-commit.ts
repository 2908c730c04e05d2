import { takeCodePoints } from '../blocks/tokens.ts';
import type { MemoryEventCard, Temporal } from '../events/memory-event.ts';
import { normaliseEventType } from '../events/temporal-repair.ts';
import type { DataOf, MemoryRecord, RecordOf } from '../records/record-types.ts';
import type { SpaceWriterState } from '../space/space-writer.ts';
import type { ExternalMemoryDocument, ImportCandidate } from './external-memory-format.ts';
import type { ImportDecidedBy, ImportDecision } from './import-decision.ts';

/** MM-IMP-8: the source block's tag, and its provenance as a "summary" nobody had to model. */
export const EXTERNAL_IMPORT_TAG = 'external-memory-import';
export const EXTERNAL_IMPORT_PROVIDER = 'external-import';
export const EXTERNAL_IMPORT_LAYERS_VERSION = 'external-memory-import@1';

export const importThreadId = (blockId: string) => `external-import:${blockId}`;
export const importTurnId = (importId: string) => `import:${importId}`;

/** One candidate as the commit takes it: what was decided, by whom, and whether it was confirmed. */
export interface CommitItem {
  candidate: ImportCandidate;
  decision: ImportDecision;
  decidedBy: ImportDecidedBy;
  confirmed: boolean;
  model: DataOf<'ExternalMemoryImported'>['decisions'][number]['model'];
}

export interface ImportCommitCommand {
  importId: string;
  blockId: string;
  messageId: string;
  occurredAt: string;
  /** The whole text as it was sent: the source block's one message. */
  text: string;
  document: Omit<ExternalMemoryDocument, 'candidates'>;
  recovered: boolean;
  items: CommitItem[];
  newEventId: () => string;
  requestedBy: string;
}

type Decided = Extract<
  MemoryRecord,
  { type: 'TurnRecorded' | 'BlockSealed' | 'BlockSummarized' | 'ExternalMemoryImported' }
>;

/**
 * MM-IMP-8, as one atomic append: the source block (a turn of its own thread holding the whole
 * text, sealed at once, with L0–L2 taken from the text and extraction skipped), then the import
 * itself: every decision, and a new event for each ADD, MERGE, SUPERSEDE or CONFLICT, citing the
 * block. MERGE and SUPERSEDE supersede their targets; CONFLICT links both ways; IGNORE is audit
 * only. An item that needed confirmation and got none commits as IGNORE (MM-IMP-7). The import's
 * text is said to the memory, not in a conversation: the space's turn counter does not move.
 */
export function decideImportCommit(state: SpaceWriterState, cmd: ImportCommitCommand): Decided[] {
  const threadId = importThreadId(cmd.blockId);
  const turnId = importTurnId(cmd.importId);
  const turn = state.turnCounter;
  const decisions: DataOf<'ExternalMemoryImported'>['decisions'] = [];
  const events: MemoryEventCard[] = [];
  cmd.items.forEach((item, index) => {
    const { candidate: c, decision: d } = item;
    const unreviewed = d.requiresConfirmation && !item.confirmed;
    const action = unreviewed ? 'IGNORE' : d.action;
    const eventId = action === 'IGNORE' ? null : cmd.newEventId();
    if (eventId) {
      const merged = d.mergedCandidate;
      const tags = [...new Set([...(c.category ? [c.category] : []), ...(merged?.tags ?? c.tags)])];
      events.push({
        id: eventId,
        title: merged?.title ?? c.title,
        summary: merged?.summary ?? c.summary,
        tags: tags.slice(0, 12),
        quotes: c.quotes,
        sourceMessageIds: [cmd.messageId],
        sourceBlockId: cmd.blockId,
        scope: c.scope,
        criticality: c.criticality,
        temporal: {
          ...importTemporal(c.temporal, cmd.occurredAt, threadId),
          supersedesEventIds:
            action === 'MERGE' || action === 'SUPERSEDE' ? d.existingEventIds : [],
          conflictsWithEventIds: action === 'CONFLICT' ? d.existingEventIds : [],
        },
        catalogHints: [],
        formedTurn: turn,
      });
    }
    decisions.push({
      index,
      title: c.title,
      action,
      existingEventIds: d.existingEventIds,
      confidence: d.confidence,
      reason: unreviewed ? `not confirmed: committed as IGNORE (proposed ${d.action})` : d.reason,
      requiresConfirmation: d.requiresConfirmation,
      confirmed: item.confirmed,
      decidedBy: item.decidedBy,
      eventId,
      model: item.model,
    });
  });
  const layers = sourceBlockLayers(cmd.text);
  return [
    {
      type: 'TurnRecorded',
      data: {
        turnId,
        threadId,
        spaceTurn: turn,
        threadTurn: 1,
        occurredAt: cmd.occurredAt,
        messages: [{ messageId: cmd.messageId, role: 'user', content: cmd.text, toolCalls: [] }],
      },
    },
    {
      type: 'BlockSealed',
      data: {
        blockId: cmd.blockId,
        threadId,
        sequence: state.blockSequence + 1,
        turnFrom: 1,
        turnTo: 1,
        spaceTurnTo: turn,
        turnIds: [turnId],
        blockSize: state.blockSize,
        reason: 'import',
      },
    },
    {
      type: 'BlockSummarized',
      data: {
        blockId: cmd.blockId,
        attempt: 1,
        title: layers.title,
        tags: [EXTERNAL_IMPORT_TAG],
        summary: layers.summary,
        keyPoints: layers.keyPoints,
        shouldExtract: false,
        model: {
          provider: EXTERNAL_IMPORT_PROVIDER,
          promptVersion: EXTERNAL_IMPORT_LAYERS_VERSION,
        },
      },
    },
    {
      type: 'ExternalMemoryImported',
      data: {
        importId: cmd.importId,
        blockId: cmd.blockId,
        messageId: cmd.messageId,
        source: {
          format: cmd.document.format,
          sourceType: cmd.document.sourceType,
          sourceSystem: cmd.document.sourceSystem,
          exportedAt: cmd.document.exportedAt,
          coverage: cmd.document.coverage,
          coverageNote: cmd.document.coverageNote,
          uncertainItems: cmd.document.uncertainItems,
          recovered: cmd.recovered,
        },
        turn,
        decisions,
        events,
        requestedBy: cmd.requestedBy,
      },
    },
  ];
}

/** MM-IMP-9: the record of an undone import, ids only. */
export function decideImportUndo(cmd: {
  importId: string;
  blockId: string;
  eventIds: string[];
  requestedBy: string;
}): [RecordOf<'ExternalMemoryImportUndone'>] {
  return [
    {
      type: 'ExternalMemoryImportUndone',
      data: {
        importId: cmd.importId,
        blockId: cmd.blockId,
        threadId: importThreadId(cmd.blockId),
        eventIds: cmd.eventIds,
        requestedBy: cmd.requestedBy,
      },
    },
  ];
}

/**
 * MM-IMP-8: L0 is the text's first line (≤ 80), L1 its first 500 characters, L2 its first 8
 * lines (each cut to 500, so one long line of JSON stays a readable point).
 */
export function sourceBlockLayers(text: string): {
  title: string;
  summary: string;
  keyPoints: string[];
} {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const first = lines[0] ?? 'External memory import';
  return {
    title: takeCodePoints(first, 80),
    summary: takeCodePoints(text.trim(), 500) || first,
    keyPoints: lines.slice(0, 8).map((l) => takeCodePoints(l, 500)),
  };
}

/** A time an exporter wrote that reads as a date (`2024`, `2024-03`, `2024-03-01`, or with a time). */
const DATE =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)?)?$/;
function isDate(value: string | undefined): value is string {
  const m = value === undefined ? null : DATE.exec(value.trim());
  if (!m) return false;
  const month = m[2] === undefined ? 1 : Number(m[2]);
  const day = m[3] === undefined ? 1 : Number(m[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/**
 * MM-IMP-3: the export's time is never the event's. An occurrence time stays only when both its
 * precision and its basis are known; what cannot be read as a date stays in `originalText`.
 * Mentioned-at defaults to the commit's time (MM-EVT-17).
 */
export function importTemporal(
  t: ImportCandidate['temporal'],
  occurredAt: string,
  threadId: string,
): Omit<Temporal, 'supersedesEventIds' | 'conflictsWithEventIds'> {
  const precision = t.precision ?? 'unknown';
  const basis = t.basis ?? 'unknown';
  const known = precision !== 'unknown' && basis !== 'unknown';
  const unread = [t.happenedStart, t.happenedEnd].filter((v) => v !== undefined && !isDate(v));
  const originalText = t.originalText ?? (unread.length > 0 ? unread.join(' – ') : undefined);
  return {
    mentionedAt: isDate(t.mentionedAt) ? t.mentionedAt : occurredAt,
    ...(known && isDate(t.happenedStart) ? { happenedStart: t.happenedStart } : {}),
    ...(known && isDate(t.happenedEnd) ? { happenedEnd: t.happenedEnd } : {}),
    ...(originalText !== undefined ? { originalText: takeCodePoints(originalText, 200) } : {}),
    precision: known ? precision : 'unknown',
    basis,
    status: t.status ?? 'unknown',
    participants: t.participants ?? [],
    eventType: normaliseEventType(t.eventType),
    threadId,
    relatedEventIds: [],
  };
}
