import { createHash } from 'node:crypto';
import {
  clampImportTopK,
  decideImportCommit,
  decideImportUndo,
  importThreadId,
  type CommitItem,
  type ExternalMemoryDocument,
  type SpaceRef,
  type StoredRecord,
} from '@stratagate/domain';
import { AppError, conflict, notFound } from '@stratagate/http';
import { awaitProjection, queryContext } from '@stratagate/query';
import {
  getImportJob,
  insertImportJob,
  updateImportJob,
  type ImportJobRow,
} from '@stratagate/store';
import { newId } from '@stratagate/writer';
import type { DataServices } from './context.ts';
import type {
  CommitImportBody,
  ConfirmImportBody,
  CreateImportBody,
  ImportView,
} from './imports.schema.ts';
import { processJob, stateOf } from './imports/analyse.ts';
import { sourceView, viewOf } from './imports/import-view.ts';
import type {
  CommitResult,
  CommittedItem,
  ImportServices,
  PreviewItem,
  Recorded,
} from './imports/job-items.ts';
import { readText } from './imports/read-text.ts';

export type { ImportServices } from './imports/job-items.ts';

const commitKey = (importId: string) => `import:${importId}:commit`;
const undoKey = (importId: string) => `import:${importId}:undo`;

function importsOf(ctx: DataServices): ImportServices {
  if (!ctx.imports) throw new Error('external memory import needs the query role');
  return ctx.imports;
}

/**
 * MM-IMP-4/7: reads the export, keeps it as a durable job, and decides each candidate against
 * the space's existing events: search, fingerprint shortcut, decider (a model's, or the offline
 * one), normalisation. Nothing is written to the memory. Each decision is stored as soon as it
 * is made, so the same text sent again under the same `importId` resumes where it stopped.
 */
export async function previewImport(
  ctx: DataServices,
  space: SpaceRef,
  input: CreateImportBody,
  requestedBy: string,
): Promise<ImportView> {
  const imports = importsOf(ctx);
  const textSha256 = createHash('sha256').update(input.text).digest('hex');
  const importId = input.importId ?? newId('imp');
  let job = await getImportJob(ctx.db, space, importId);
  if (job && job.text_sha256 !== textSha256) {
    throw conflict(
      'import_id_reused',
      `importId '${importId}' was already used for another text; choose a new one`,
    );
  }
  if (!job) {
    const parsed = await readText(imports, input.text);
    await insertImportJob(ctx.db, space, {
      importId,
      requestedBy,
      textSha256,
      recovered: parsed.recovered,
      topK: clampImportTopK(input.topK),
      text: input.text,
      document: parsed.document,
      candidates: parsed.document.candidates.length,
      now: ctx.now(),
    });
    job = (await getImportJob(ctx.db, space, importId))!;
  }
  if (job.state === 'processing' || job.state === 'failed') {
    await processJob(ctx, imports, space, job);
    job = (await getImportJob(ctx.db, space, importId))!;
  }
  return viewOf(ctx, space, job);
}

export async function getImport(
  ctx: DataServices,
  space: SpaceRef,
  importId: string,
): Promise<ImportView> {
  return viewOf(ctx, space, await requireJob(ctx, space, importId));
}

/**
 * MM-IMP-7: the user settles items: any action for any decided candidate, targets only among
 * the memories it was compared with. Confirmed items commit as chosen.
 */
export async function confirmImportItems(
  ctx: DataServices,
  space: SpaceRef,
  importId: string,
  body: ConfirmImportBody,
): Promise<ImportView> {
  const job = await requireJob(ctx, space, importId);
  assertOpen(job);
  const items = [...(job.items as (PreviewItem | null)[])];
  const seen = new Set<number>();
  body.items.forEach((choice, i) => {
    const item = items[choice.index];
    const where = (field: string) => `/items/${i}/${field}`;
    if (!item) {
      throw itemInvalid(where('index'), `the import has no decided candidate ${choice.index}`);
    }
    if (seen.has(choice.index)) {
      throw itemInvalid(where('index'), `candidate ${choice.index} is listed twice`);
    }
    seen.add(choice.index);
    const ids = [...new Set(choice.existingEventIds)];
    const needsTarget = ['MERGE', 'SUPERSEDE', 'CONFLICT'].includes(choice.action);
    if (needsTarget && ids.length === 0) {
      throw itemInvalid(
        where('existingEventIds'),
        `${choice.action} needs at least one existing memory`,
      );
    }
    if (!needsTarget && ids.length > 0) {
      throw itemInvalid(where('existingEventIds'), `${choice.action} takes no existing memory`);
    }
    const matched = new Set(item.matches.map((m) => m.id));
    const foreign = ids.find((id) => !matched.has(id));
    if (foreign !== undefined) {
      throw itemInvalid(
        where('existingEventIds'),
        `'${foreign}' is not among the memories candidate ${choice.index} was compared with`,
      );
    }
    const same = choice.action === item.decision.action;
    items[choice.index] = {
      ...item,
      decision: {
        ...item.decision,
        action: choice.action,
        existingEventIds: ids,
        mergedCandidate: same ? item.decision.mergedCandidate : null,
        reason: same ? item.decision.reason : 'chosen by the user',
      },
      decidedBy: same ? item.decidedBy : 'user',
      confirmed: true,
    };
  });
  await updateImportJob(ctx.db, space, importId, {
    items,
    state: stateOf(items),
    now: ctx.now(),
  });
  return getImport(ctx, space, importId);
}

/**
 * MM-IMP-8: writes the preview as it stands, in one append, if the space is still at the
 * preview's revision ("preview is stale" otherwise). A retried commit answers the same.
 */
export async function commitImport(
  ctx: DataServices,
  space: SpaceRef,
  importId: string,
  body: CommitImportBody,
  requestedBy: string,
): Promise<ImportView> {
  const imports = importsOf(ctx);
  const job = await requireJob(ctx, space, importId);
  if (job.state === 'committed') return viewOf(ctx, space, job);
  assertOpen(job);
  if (body.baseRevision !== job.base_revision) throw stale(job.base_revision);
  const document = job.document as ExternalMemoryDocument;
  const preview = job.items as PreviewItem[];
  const blockId = newId('blk');
  let revision = -1;
  const outcome = await ctx.writer.write(
    space,
    {
      occurredAt: ctx.now().toISOString(),
      threadId: importThreadId(blockId),
      idempotencyKey: commitKey(importId),
    },
    (state) => {
      revision = state.version;
      if (state.version !== body.baseRevision) return [];
      return decideImportCommit(state, {
        importId,
        blockId,
        messageId: newId('msg'),
        occurredAt: ctx.now().toISOString(),
        text: job.text ?? '',
        document,
        recovered: job.recovered,
        items: preview.map((p, i): CommitItem => ({
          candidate: document.candidates[i]!,
          decision: p.decision,
          decidedBy: p.decidedBy,
          confirmed: p.confirmed,
          model: p.model,
        })),
        newEventId: () => newId('evt'),
        requestedBy,
      });
    },
  );
  let record: StoredRecord;
  if (outcome.status === 'duplicate') {
    record = await importRecordAfter(ctx, space, outcome.existing);
  } else {
    if (outcome.records.length === 0) throw stale(revision);
    record = outcome.records.at(-1)!;
  }
  const qctx = await queryContext(imports.query);
  await awaitProjection(qctx, space, record.position);
  const data = record.data as Recorded;
  const result: CommitResult = {
    position: record.position,
    spaceVersion: record.spaceVersion,
    sourceBlockId: data.blockId,
    addedEventIds: data.events.map((e) => e.id),
    changedEventIds: [
      ...new Set(data.decisions.flatMap((d) => (d.eventId ? d.existingEventIds : []))),
    ],
    // What the exporter wrote about its export stays in the log with the text, not here.
    source: { ...sourceView(document), coverageNote: null, uncertainItems: [] },
  };
  const committed: CommittedItem[] = data.decisions.map((d) => ({
    action: d.action,
    existingEventIds: d.existingEventIds,
    confidence: d.confidence,
    requiresConfirmation: d.requiresConfirmation,
    confirmed: d.confirmed,
    decidedBy: d.decidedBy,
    eventId: d.eventId,
  }));
  await updateImportJob(ctx.db, space, importId, {
    state: 'committed',
    items: committed,
    result,
    dropContent: true,
    now: ctx.now(),
  });
  return getImport(ctx, space, importId);
}

/**
 * MM-IMP-9: undoes a committed import. Its records (the source block, the import, the block's
 * graph work) were sealed under the key of its own thread; deleting that key (ADR 0046) makes
 * them unreadable, and the space's read models are rebuilt from what remains: its events are
 * gone, the events it superseded are restored unless something else supersedes them, graph
 * records it alone backed are gone, and the block with its text is deleted. An undo record says
 * which import, and who asked. Interrupted, it is carried through like an erasure.
 */
export async function undoImport(
  ctx: DataServices,
  space: SpaceRef,
  importId: string,
  requestedBy: string,
): Promise<ImportView> {
  const job = await requireJob(ctx, space, importId);
  if (job.state === 'undone') return viewOf(ctx, space, job);
  if (job.state !== 'committed') {
    throw conflict(
      'import_not_committed',
      `import '${importId}' is not committed; there is nothing to undo`,
    );
  }
  const result = job.result as CommitResult;
  const threadId = importThreadId(result.sourceBlockId);
  const target = { scope: 'thread' as const, threadId };
  await ctx.keys.beginErasure({ erasureId: `undo_${importId}`, space, target, requestedBy });
  const outcome = await ctx.writer.write(
    space,
    { occurredAt: ctx.now().toISOString(), idempotencyKey: undoKey(importId) },
    () =>
      decideImportUndo({
        importId,
        blockId: result.sourceBlockId,
        eventIds: result.addedEventIds,
        requestedBy,
      }),
    async () => {
      await ctx.keys.erase(space, target);
    },
  );
  const record = outcome.status === 'duplicate' ? outcome.existing : outcome.records[0]!;
  await ctx.snapshots?.discard(ctx.log.name, space);
  await ctx.reprojectSpace(space);
  ctx.postingCache?.forgetSpace(space.tenantId, space.spaceId);
  await ctx.keys.completeErasure(`undo_${importId}`);
  await updateImportJob(ctx.db, space, importId, {
    state: 'undone',
    result: { ...result, source: null, undo: { position: record.position } },
    now: ctx.now(),
  });
  return getImport(ctx, space, importId);
}

async function requireJob(ctx: DataServices, space: SpaceRef, importId: string) {
  const job = await getImportJob(ctx.db, space, importId);
  if (!job) throw notFound('import', importId);
  return job;
}

function assertOpen(job: ImportJobRow): void {
  if (job.state === 'ready' || job.state === 'awaiting_confirmation') return;
  if (job.state === 'committed' || job.state === 'undone') {
    throw conflict('import_closed', `import '${job.import_id}' is already ${job.state}`);
  }
  throw conflict(
    'import_not_ready',
    `import '${job.import_id}' is ${job.state === 'failed' ? 'failed: send it again to resume' : 'still being analysed'}`,
  );
}

const stale = (revision: number) =>
  conflict(
    'preview_stale',
    'preview is stale: the space changed since it was made; preview the import again',
    { currentRevision: revision },
  );

const itemInvalid = (path: string, message: string) =>
  new AppError(400, 'import_item_invalid', message, undefined, [{ in: 'body', path, message }]);

/** The import record of a commit, appended last in the same append as `first`. */
async function importRecordAfter(
  ctx: DataServices,
  space: SpaceRef,
  first: StoredRecord,
): Promise<StoredRecord> {
  const page = await ctx.log.readSpace(space, first.spaceVersion - 1, 4);
  const found = page.find((r) => r.type === 'ExternalMemoryImported');
  if (!found)
    throw new Error(`the commit of record ${first.metadata.recordId} has no import record`);
  return found;
}
