import type { DataOf, ImportDecidedBy, ImportDecision } from '@stratagate/domain';
import type { ModelPort } from '@stratagate/model';
import type { QueryServices } from '@stratagate/query';
import type { ImportView } from '../imports.schema.ts';

/** What an external memory import needs beyond the data service: search, and maybe a model. */
export interface ImportServices {
  query: QueryServices;
  /** The node's model: its `decideImport` and `recoverExternalMemory`, when it has them. */
  model: ModelPort | null;
  /** Per model call (a decision or a recovery); default 30 s. */
  modelTimeoutMs?: number;
}

export type Recorded = DataOf<'ExternalMemoryImported'>;
export type Model = Recorded['decisions'][number]['model'];

/** A candidate decided in a preview, as the job keeps it until the commit. */
export interface PreviewItem {
  decision: ImportDecision;
  decidedBy: ImportDecidedBy;
  confirmed: boolean;
  model: Model;
  matches: { id: string; title: string; summary: string; status: string }[];
}

/** A decided candidate after the commit: ids and numbers, no content. */
export interface CommittedItem {
  action: ImportDecision['action'];
  existingEventIds: string[];
  confidence: number;
  requiresConfirmation: boolean;
  confirmed: boolean;
  decidedBy: ImportDecidedBy;
  eventId: string | null;
}

export interface CommitResult {
  position: number;
  spaceVersion: number;
  sourceBlockId: string;
  addedEventIds: string[];
  changedEventIds: string[];
  source: ImportView['source'];
  undo?: { position: number };
}

export const DEFAULT_MODEL_TIMEOUT_MS = 30_000;
