import {
  fingerprintDuplicate,
  importFingerprint,
  normaliseImportDecision,
  offlineImportDecision,
  takeCodePoints,
  type ExternalMemoryDocument,
  type ImportCandidate,
  type SpaceRef,
} from '@stratagate/domain';
import { catchUpReads, queryContext, searchEvents, type QueryContext } from '@stratagate/query';
import {
  completeImportItem,
  getImportJob,
  updateImportJob,
  type ImportJobRow,
  type ImportJobState,
} from '@stratagate/store';
import type { DataServices } from '../context.ts';
import { eventSummaries } from '../read-model/imports.queries.ts';
import { DEFAULT_MODEL_TIMEOUT_MS, type ImportServices, type PreviewItem } from './job-items.ts';

/** Search hits checked for an exact duplicate (MM-IMP-5), as remember checks them. */
const DUPLICATE_CANDIDATES = 20;

/** Decides every candidate not decided yet, storing each decision as it is made. */
export async function processJob(
  ctx: DataServices,
  imports: ImportServices,
  space: SpaceRef,
  job: ImportJobRow,
): Promise<void> {
  const qctx = await queryContext(imports.query);
  const baseRevision = await ctx.log.spaceVersion(space);
  await catchUpReads(qctx, space);
  await updateImportJob(ctx.db, space, job.import_id, {
    state: 'processing',
    baseRevision,
    error: null,
    now: ctx.now(),
  });
  const document = job.document as ExternalMemoryDocument;
  const items = job.items as (PreviewItem | null)[];
  const turn = (await ctx.writer.state(space)).turnCounter;
  const fingerprints = document.candidates.map((c) => importFingerprint(c.title, c.summary));
  try {
    for (const [index, candidate] of document.candidates.entries()) {
      if (items[index]) continue;
      const item = await prepareItem(qctx, imports, space, turn, candidate, job, {
        fingerprint: fingerprints[index]!,
        earlier: new Set(fingerprints.slice(0, index)),
      });
      await completeImportItem(ctx.db, space, job.import_id, index, item, ctx.now());
      items[index] = item;
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await updateImportJob(ctx.db, space, job.import_id, {
      state: 'failed',
      error: takeCodePoints(message, 500),
      now: ctx.now(),
    });
    return;
  }
  const stored = (await getImportJob(ctx.db, space, job.import_id))!.items as PreviewItem[];
  await updateImportJob(ctx.db, space, job.import_id, { state: stateOf(stored), now: ctx.now() });
}

/** MM-IMP-4 steps 2–3 for one candidate: search, then decide; nothing is written. */
async function prepareItem(
  qctx: QueryContext,
  imports: ImportServices,
  space: SpaceRef,
  turn: number,
  candidate: ImportCandidate,
  job: ImportJobRow,
  seen: { fingerprint: string; earlier: ReadonlySet<string> },
): Promise<PreviewItem> {
  const hits = await searchEvents(qctx, space, turn, {
    query: [candidate.title, candidate.summary, ...candidate.tags].join('\n'),
    limit: DUPLICATE_CANDIDATES,
    offset: 0,
    agentMemoryWeight: 1,
  });
  const rows = new Map(
    (
      await eventSummaries(
        qctx.db,
        qctx.schema,
        space,
        hits.map((h) => h.id),
      )
    ).map((r) => [r.event_id, r]),
  );
  const found = hits.flatMap((h) => {
    const row = rows.get(h.id);
    return row && (row.status === 'active' || row.status === 'superseded') ? [row] : [];
  });
  const matches = found.slice(0, job.top_k).map((r) => ({
    id: r.event_id,
    title: r.title,
    summary: takeCodePoints(r.summary, 300),
    status: r.status,
  }));
  const live = found
    .filter((r) => r.status === 'active')
    .map((r) => ({ id: r.event_id, fingerprint: importFingerprint(r.title, r.summary) }));
  const duplicate = fingerprintDuplicate(seen.fingerprint, seen.earlier, live);
  if (duplicate) {
    return {
      decision: { ...duplicate, requiresConfirmation: job.recovered },
      decidedBy: 'fingerprint',
      confirmed: false,
      model: null,
      matches,
    };
  }
  const topK = matches.map((m) => m.id);
  const model = imports.model;
  if (model?.decideImport) {
    const decided = await model.decideImport(
      {
        candidate: {
          title: candidate.title,
          summary: candidate.summary,
          tags: candidate.tags,
          memoryKind: candidate.memoryKind,
          category: candidate.category,
          ...(candidate.temporal.originalText
            ? { originalText: candidate.temporal.originalText }
            : {}),
        },
        matches: found.slice(0, job.top_k).map((r) => ({
          id: r.event_id,
          title: r.title,
          summary: r.summary,
          status: r.status,
        })),
      },
      { signal: AbortSignal.timeout(imports.modelTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS) },
    );
    return {
      decision: normaliseImportDecision(decided.output, topK, job.recovered),
      decidedBy: 'model',
      confirmed: false,
      model: {
        provider: decided.provider,
        ...(decided.model ? { model: decided.model } : {}),
        promptVersion: decided.promptVersion,
        ...(decided.usage ? { usage: decided.usage } : {}),
      },
      matches,
    };
  }
  return {
    decision: normaliseImportDecision(
      offlineImportDecision(candidate, matches),
      topK,
      job.recovered,
    ),
    decidedBy: 'offline',
    confirmed: false,
    model: null,
    matches,
  };
}

export function stateOf(items: readonly (PreviewItem | null)[]): ImportJobState {
  return items.some((i) => i && i.decision.requiresConfirmation && !i.confirmed)
    ? 'awaiting_confirmation'
    : 'ready';
}
