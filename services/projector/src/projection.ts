import type { DecodedRecord } from '@stratagate/domain';
import type { AnyDb } from '@stratagate/store';

/**
 * A projection is a batch handler that receives the open transaction. The runner stores the
 * checkpoint in that same transaction; handlers are also idempotent on their own (row-level
 * position guards, insert-on-conflict-do-nothing), so a batch delivered twice changes nothing.
 */
export interface Projection {
  readonly name: string;
  /** Creates the projection's tables in `schema` if absent. */
  migrate(db: AnyDb, schema: string): Promise<void>;
  /**
   * Applies `records` in order. With `control`, a handler may stop at a boundary of its own
   * once `control.shouldYield()` says so (after at least one record) and return how many
   * records, from the first, it applied: the runner stores the checkpoint after the last of them
   * and commits, and the rest comes in the next batch (ADR 0023). Otherwise it applies them all.
   */
  handle(
    trx: AnyDb,
    schema: string,
    records: DecodedRecord[],
    control?: HandleControl,
  ): Promise<void | number>;
  /**
   * Upkeep that cannot run in a transaction (VACUUM), called by the runners after a batch has
   * committed. Changes no row, so replay and rebuild comparisons are unaffected.
   */
  afterCommit?(db: AnyDb, schema: string): Promise<void>;
  /**
   * Work that batches queue in the read model and a lane applies in transactions of its own, side
   * by side with the next batches (ADR 0014). The runners drain it after every committed batch;
   * `catchUp` returns once it is empty.
   */
  deferred?: DeferredWork;
}

/** Lets background work give the session up early (ADR 0023). */
export interface HandleControl {
  /** True when a caller waiting for the session should go first: stop at the next boundary. */
  shouldYield(): boolean;
}

/** How much one drain may take, and where it reports how long it held the session. */
export interface DrainSlice {
  /** Items at most (the work's own default when omitted). */
  limit?: number;
  /** Called after COMMIT with the milliseconds from the transaction's first statement. */
  held?: (ms: number) => void;
  /** With it, a drain may stop between items once `shouldYield()` says so (ADR 0023). */
  control?: HandleControl;
}

export interface DeferredWork {
  /** Items one drain takes when it is given no limit; a time budget sizes slices up to it. */
  maxSlice: number;
  /** Applies a slice of the queued work in one transaction; 0 once nothing is queued. */
  drain(db: AnyDb, schema: string, slice?: DrainSlice): Promise<number>;
  /** What is queued: items, and the log position of the oldest (null when nothing is). */
  queued(db: AnyDb, schema: string): Promise<{ items: number; oldestPosition: number | null }>;
}

/**
 * Where a read model is complete: `applied` (a checkpoint, or a space version), or the one before
 * the oldest item of deferred work still queued (in the same numbering), whichever is lower.
 */
export function completeThrough(applied: number, oldestQueued: number | null): number {
  return oldestQueued === null ? applied : Math.min(applied, oldestQueued - 1);
}

/**
 * A projection whose output depends on rules that may change (decay defaults, weight formula,
 * ranking, tokenisation). Each version of the read model is built with one code version and one
 * rule set, recorded in the control table (`versions.ts`); a rule change is applied by a rebuild
 * side by side, never by rewriting the live version in place.
 */
export interface ProjectionDefinition<Rules = unknown> {
  readonly name: string;
  /** Bump when the projection code changes what it writes: a rebuild applies the change. */
  readonly codeVersion: number;
  /** Validates rules (from configuration or the control table), filling defaults. */
  parseRules(input: unknown): Rules;
  create(rules: Rules): Projection;
}

/** What the control table stores for one version: the code that built it and its rules. */
export interface VersionRules {
  codeVersion: number;
  rules: Record<string, unknown>;
}

/** Key-sorted JSON, so equal rule sets compare equal whatever their key order. */
export function canonicalRules(value: VersionRules): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v as object)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sort(value));
}

export function versionRulesOf<R>(
  definition: ProjectionDefinition<R>,
  rules: unknown,
): VersionRules {
  return {
    codeVersion: definition.codeVersion,
    rules: definition.parseRules(rules) as Record<string, unknown>,
  };
}
