import type { Kysely } from 'kysely';
import { LooseEventTracker } from './topic-loose-events.ts';
import { z } from 'zod';
import { DEFAULT_DECAY_LAMBDA, type DecodedRecord } from '@stratagate/domain';
import {
  keepPlannerStatistics,
  readModelKeySizes,
  keepVisibilityMaps,
  migrateReadModel,
  withSearchWriteBuffer,
  type AnyDb,
  type ReadModelTables,
} from '@stratagate/store';
import {
  onEvidenceAssessed,
  onEvidenceBatchOpened,
  onMemoryAdopted,
} from './evidence.projection.ts';
import { onGraphProjected } from './graph.projection.ts';
import { reindexAfterEventChanges } from './graph-search.projection.ts';
import { onAgentMemoryRecorded } from './agent-memory.projection.ts';
import { onProfileRecord } from './profiles.projection.ts';
import { onContentErased } from './erasure.projection.ts';
import {
  onExternalMemoryImported,
  onExternalMemoryImportUndone,
} from './external-import.projection.ts';
import { onMemoryEventStateChanged, onMemoryEventsExtracted } from './memory-events.projection.ts';
import {
  invalidateTopicsAfterEventChanges,
  onTopicJobFailed,
  onTopicRetryRequested,
  onTopicsBuilt,
} from './topics.projection.ts';
import { drainMessageIndex, MESSAGE_INDEX_SLICE, messageIndexQueued } from './message-index.ts';
import type { HandleControl, Projection, ProjectionDefinition } from './projection.ts';
import {
  ensureSpace,
  onSpaceConfigured,
  onTurnsRecorded,
  type TurnRecord,
} from './turns.projection.ts';
import {
  onBlockExpanded,
  onBlocksSealed,
  type SealedBlock,
  onBlockSummarized,
  onDerivationFailed,
  onDerivationRetryRequested,
  onExtractionSkipped,
  onReconsolidationRequested,
} from './blocks.projection.ts';

/**
 * Rules of the core projection that may change and are applied by a rebuild (ADR 0009). Each
 * read-model version records the rules it was built with.
 */
export const CoreProjectionRules = z
  .object({
    /** Fading λ of spaces that never recorded SpaceConfigured (MM-BLK-18). */
    defaultDecayLambda: z.number().finite().min(0).max(5).default(DEFAULT_DECAY_LAMBDA),
  })
  .strict();
export type CoreProjectionRules = z.infer<typeof CoreProjectionRules>;

/** Spaces, threads, turns, messages, blocks (L3–L5, L0–L2, job state, decay anchors). */
export function createCoreProjection(
  rules: CoreProjectionRules = CoreProjectionRules.parse({}),
): Projection {
  return {
    name: 'core',
    migrate: (db, schema) => migrateReadModel(db, schema),
    // The search index's postings and counts are written once per batch (ADR 0044).
    handle: (trx, schema, records, control) =>
      withSearchWriteBuffer(trx, schema, () => handleCore(trx, schema, records, rules, control)),
    // PGlite has no autovacuum: keep the visibility maps set, so the search postings are read
    // by index-only scans, and reclaim dead rows (at most every 5 s, tables that grew by 25 %).
    afterCommit: async (db, schema) => {
      await keepVisibilityMaps(db, schema);
    },
    // Sealed blocks' messages are indexed for raw search by the indexing lane (ADR 0014).
    deferred: {
      maxSlice: MESSAGE_INDEX_SLICE,
      drain: (db, schema, slice) =>
        drainMessageIndex(db, schema, slice?.limit, slice?.held, slice?.control),
      queued: (db, schema) => messageIndexQueued(db, schema),
    },
  };
}

/** The core projection with the default rules (tests, tools, a fresh database). */
export const coreProjection: Projection = createCoreProjection();

export const coreProjectionDefinition: ProjectionDefinition<CoreProjectionRules> = {
  name: 'core',
  // 1: the read model as of ADR 0009 (rules: defaultDecayLambda).
  // 2: search documents with stems, calendar terms and both neighbours of a message (ADR 0040).
  codeVersion: 2,
  parseRules: (input) => CoreProjectionRules.parse(input ?? {}),
  create: createCoreProjection,
};

async function handleCore(
  trx: AnyDb,
  schema: string,
  records: DecodedRecord[],
  rules: CoreProjectionRules,
  control?: HandleControl,
): Promise<number> {
  const rm = (trx as Kysely<ReadModelTables>).withSchema(schema);
  // The planner needs statistics on the read model as it grows (PGlite has no autovacuum; a
  // server's may lag behind a bulk projection): ANALYZE the tables that grew, at most once a second.
  // A space, or a kind of search document, that the statistics do not know is analysed in once
  // it has 1,000 turns, or documents.
  await keepPlannerStatistics(trx, schema, { keySizes: readModelKeySizes(schema) });
  // Turns and seals are gathered and applied together (ADR 0028): all the turns first, then
  // the seals, whose blocks read the turns' messages. Any other record may read what they wrote,
  // so it applies them first.
  let turns: TurnRecord[] = [];
  let seals: SealedBlock[] = [];
  const flushGathered = async () => {
    await onTurnsRecorded(rm, schema, turns, rules);
    turns = [];
    await onBlocksSealed(rm, schema, seals);
    seals = [];
  };
  // The directory's loose events follow what the batch changed, once at its end (ADR 0054).
  const loose = new LooseEventTracker();
  for (const [i, record] of records.entries()) {
    // A caller waits for the session (an append on the embedded store): stop between records,
    // the turns gathered so far included, and let the runner commit what was applied (ADR 0023).
    if (i > 0 && control?.shouldYield()) {
      await flushGathered();
      await loose.flush(rm);
      return i;
    }
    const meta = record.meta;
    loose.note(record);
    if (record.type === 'TurnRecorded') {
      turns.push(record);
      continue;
    }
    if (record.type === 'BlockSealed') {
      seals.push({ rec: record, meta });
      continue;
    }
    // Everything else may read what the turns before it wrote.
    await flushGathered();
    switch (record.type) {
      case 'SpaceConfigured':
        await ensureSpace(rm, meta, rules);
        await onSpaceConfigured(rm, record, meta);
        break;
      case 'BlockSummarized':
        await onBlockSummarized(rm, record, meta);
        break;
      case 'ExtractionSkipped':
        await onExtractionSkipped(rm, record, meta);
        break;
      case 'DerivationFailed':
        await onDerivationFailed(rm, record, meta);
        break;
      case 'DerivationRetryRequested':
        await onDerivationRetryRequested(rm, record, meta);
        break;
      case 'MemoryEventsExtracted':
        await onMemoryEventsExtracted(rm, schema, record, meta);
        break;
      case 'ReconsolidationRequested':
        await onReconsolidationRequested(rm, record, meta);
        break;
      case 'GraphProjected':
        await onGraphProjected(rm, schema, record, meta);
        break;
      case 'EvidenceBatchOpened':
        await onEvidenceBatchOpened(rm, record, meta);
        break;
      case 'EvidenceAssessed':
        await onEvidenceAssessed(rm, record, meta);
        break;
      case 'MemoryAdopted':
        await onMemoryAdopted(rm, record, meta);
        break;
      case 'MemoryEventStateChanged':
        await onMemoryEventStateChanged(rm, schema, record, meta);
        break;
      case 'BlockExpanded':
        await onBlockExpanded(rm, record, meta);
        break;
      case 'AgentMemoryRecorded':
        await onAgentMemoryRecorded(rm, schema, record, meta);
        break;
      case 'ProfileCreated':
      case 'ProfileFieldChanged':
      case 'ProfileChangeProposed':
      case 'ProfileProposalResolved':
      case 'ProfileMaintained':
        await onProfileRecord(rm, record);
        break;
      case 'ContentErased':
        await onContentErased(rm, record, meta);
        break;
      case 'ExternalMemoryImported':
        await onExternalMemoryImported(rm, schema, record, meta);
        break;
      case 'ExternalMemoryImportUndone':
        await onExternalMemoryImportUndone(rm, schema, record, meta);
        break;
      case 'TopicsBuilt':
        await onTopicsBuilt(rm, record, meta);
        break;
      case 'TopicJobFailed':
        await onTopicJobFailed(rm, record, meta);
        break;
      case 'TopicRetryRequested':
        await onTopicRetryRequested(rm, meta);
        break;
      default: {
        const never: never = record;
        throw new Error(`unhandled record ${(never as DecodedRecord).type}`);
      }
    }
    // Graph search documents follow the statuses of the events they cite (MM-RET-5).
    await reindexAfterEventChanges(rm, schema, record);
    await invalidateTopicsAfterEventChanges(rm, record);
  }
  await flushGathered();
  await loose.flush(rm);
  return records.length;
}

/** The projections an operator can rebuild by name (`stratagate projections rebuild <name>`). */
export const PROJECTIONS: Record<string, ProjectionDefinition> = {
  core: coreProjectionDefinition,
};
