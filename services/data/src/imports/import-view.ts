import type { ExternalMemoryDocument, ImportDecision, SpaceRef } from '@stratagate/domain';
import type { ImportJobRow } from '@stratagate/store';
import type { DataServices } from '../context.ts';
import type { ImportView } from '../imports.schema.ts';
import type { CommitResult, CommittedItem, PreviewItem, Recorded } from './job-items.ts';

export function sourceView(d: ExternalMemoryDocument): NonNullable<ImportView['source']> {
  return {
    format: d.format,
    sourceSystem: d.sourceSystem,
    exportedAt: d.exportedAt,
    coverage: d.coverage,
    coverageNote: d.coverageNote,
    uncertainItems: d.uncertainItems,
  };
}

const ACTION_COUNTS = ['add', 'merge', 'supersede', 'conflict', 'ignore'] as const;

export async function viewOf(
  ctx: DataServices,
  space: SpaceRef,
  job: ImportJobRow,
): Promise<ImportView> {
  const committed = job.state === 'committed' || job.state === 'undone';
  const result = (job.result ?? null) as CommitResult | null;
  let items: ImportView['items'];
  let candidates: number;
  let recordedSource: ImportView['source'] = null;
  if (!committed) {
    const document = job.document as ExternalMemoryDocument;
    candidates = document.candidates.length;
    items = (job.items as (PreviewItem | null)[]).flatMap((item, index) => {
      if (!item) return [];
      const c = document.candidates[index]!;
      return [
        {
          index,
          title: c.title,
          summary: c.summary,
          memoryKind: c.memoryKind,
          category: c.category,
          ...decisionView(item.decision),
          matches: item.matches,
          requiresConfirmation: item.decision.requiresConfirmation,
          confirmed: item.confirmed,
          decidedBy: item.decidedBy,
          eventId: null,
        },
      ];
    });
  } else {
    // The import record says what each item was, while it can still be read.
    const recorded = result ? await readableImportRecord(ctx, space, result) : null;
    if (recorded) {
      const r = recorded.source;
      recordedSource = {
        format: r.format,
        sourceSystem: r.sourceSystem,
        exportedAt: r.exportedAt,
        coverage: r.coverage,
        coverageNote: r.coverageNote,
        uncertainItems: r.uncertainItems,
      };
    }
    const list = job.items as CommittedItem[];
    candidates = list.length;
    items = list.map((item, index) => {
      const r = recorded?.decisions[index];
      return {
        index,
        title: r?.title ?? null,
        summary: null,
        memoryKind: null,
        category: null,
        action: item.action,
        existingEventIds: item.existingEventIds,
        matches: [],
        mergedCandidate: null,
        reason: r?.reason ?? null,
        confidence: item.confidence,
        requiresConfirmation: item.requiresConfirmation,
        confirmed: item.confirmed,
        decidedBy: item.decidedBy,
        eventId: item.eventId,
      };
    });
  }
  const counts = {
    candidates,
    decided: items.length,
    needsConfirmation: items.filter((i) => i.requiresConfirmation && !i.confirmed).length,
    ...Object.fromEntries(
      ACTION_COUNTS.map((a) => [a, items.filter((i) => i.action === a.toUpperCase()).length]),
    ),
  } as ImportView['counts'];
  return {
    importId: job.import_id,
    state: job.state,
    baseRevision: job.base_revision,
    recovered: job.recovered,
    source: committed
      ? (recordedSource ?? result?.source ?? null)
      : sourceView(job.document as ExternalMemoryDocument),
    counts: committed ? { ...counts, needsConfirmation: 0 } : counts,
    items,
    error: job.error,
    commit: result
      ? {
          position: result.position,
          sourceBlockId: result.sourceBlockId,
          addedEventIds: result.addedEventIds,
          changedEventIds: result.changedEventIds,
        }
      : null,
    undo: result?.undo ?? null,
    createdAt: new Date(job.created_at).toISOString(),
    updatedAt: new Date(job.updated_at).toISOString(),
  };
}

function decisionView(d: ImportDecision) {
  return {
    action: d.action,
    existingEventIds: d.existingEventIds,
    mergedCandidate: d.mergedCandidate,
    reason: d.reason,
    confidence: d.confidence,
  };
}

async function readableImportRecord(
  ctx: DataServices,
  space: SpaceRef,
  result: CommitResult,
): Promise<Recorded | null> {
  const [record] = await ctx.log.readSpace(space, result.spaceVersion - 1, 1);
  if (!record || record.erased || record.type !== 'ExternalMemoryImported') return null;
  return record.data as Recorded;
}
