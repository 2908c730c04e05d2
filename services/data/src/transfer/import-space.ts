import { createHash } from 'node:crypto';
import type { NewRecord, SpaceRef } from '@stratagate/domain';
import { conflict } from '@stratagate/http';
import { WrongExpectedVersionError, type MessageLog } from '@stratagate/log';
import { beginSpaceImport, endSpaceImport, type AnyDb } from '@stratagate/store';
import { readExport, type ExportedRecord, type ExportSummary } from './read-export.ts';

export type ExportSource = () => AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

export interface ImportOptions {
  log: MessageLog;
  /** The read models' database: the space is marked there while it is imported. */
  db: AnyDb;
  target: SpaceRef;
  /** Opens the file from its start. Called twice: to verify it whole, then to apply it. */
  open: ExportSource;
  /** Records per append at most (default 500). */
  chunkRecords?: number;
  /** Bytes of record data per append at most (default 512 KiB; a larger record goes alone). */
  chunkBytes?: number;
  onProgress?: (progress: ImportProgress) => void;
  /**
   * Resolves once the read model has applied every record of the target up to `position` (its
   * last). The space stays marked as importing until then; without it (no projector beside the
   * caller) the mark goes as soon as the records are in the log.
   */
  untilProjected?: (position: number) => Promise<void>;
}

export interface ImportProgress {
  phase: 'verifying' | 'importing';
  done: number;
  /** Records in the file (known once it is verified). */
  total: number | null;
}

export interface ImportResult {
  source: SpaceRef;
  target: SpaceRef;
  /** Records in the file, all now in the target space. */
  records: number;
  /** The target space's version after the import. */
  spaceVersion: number;
  /** Records an interrupted run of the same import had already appended (0: a fresh import). */
  resumedFrom: number;
  /** Record ids were rewritten because the target is another space than the source. */
  idsRewritten: boolean;
  /** The file's digest (its end line's). */
  digest: string;
}

/**
 * Imports an export file into `target` (ADR 0045). The whole file is verified before anything is
 * appended, so a damaged file changes nothing. The records then go to the log in order, a chunk
 * per append with the expected version, their ids rewritten when the target is another space.
 * Only records are appended: what the source's models produced is in them, so no model runs, and
 * the projector builds the same read model from them.
 *
 * The target must be empty, or hold exactly the first records of this same import (an earlier run
 * was interrupted): the import then resumes after them. While it runs, and until the read model
 * has applied its last record, the space is marked as importing, and the consolidator leaves it
 * alone.
 */
export async function importSpace(options: ImportOptions): Promise<ImportResult> {
  const { log, target } = options;
  const progress = options.onProgress;
  const present = await log.spaceVersion(target);
  const summary = await verify(options, present);
  const source = summary.header.source;
  const rewrite = idRewriter(source, target, summary.recordIds).record;
  const result = (spaceVersion: number): ImportResult => ({
    source,
    target,
    records: summary.records,
    spaceVersion,
    resumedFrom: present,
    idsRewritten: !sameSpace(source, target),
    digest: summary.digest,
  });
  // All in already (a run that stopped before the read model caught up): only the mark is left.
  if (present === summary.records) {
    await unmark(options, present);
    return result(present);
  }

  await beginSpaceImport(options.db, target, summary.records);
  const chunkRecords = options.chunkRecords ?? 500;
  const chunkBytes = options.chunkBytes ?? 512 * 1024;
  let version = present;
  let index = 0;
  let chunk: NewRecord[] = [];
  let bytes = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    try {
      const appended = await log.append(target, chunk, { expectedVersion: version });
      if (appended.status === 'duplicate') {
        throw conflict(
          'space_changed',
          `space '${target.spaceId}' received a record with the idempotency key ` +
            `'${appended.existing.metadata.idempotencyKey}' while it was being imported`,
        );
      }
      version = appended.spaceVersion;
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      throw conflict(
        'space_changed',
        `space '${target.spaceId}' was written to while it was being imported; the import ` +
          `stopped after ${version} of ${summary.records} records`,
      );
    }
    chunk = [];
    bytes = 0;
    progress?.({ phase: 'importing', done: version, total: summary.records });
  };
  const reading = readExport(options.open());
  for (;;) {
    const next = await reading.next();
    if (next.done) {
      if (next.value.digest !== summary.digest) {
        throw conflict(
          'export_file_changed',
          `the file changed while it was being imported; ${version} of ${summary.records} ` +
            'records are in the space: import the original file again to finish',
        );
      }
      break;
    }
    if (next.value.kind !== 'record') continue;
    index += 1;
    if (index <= present) continue;
    const record = rewrite(next.value.record);
    const size = JSON.stringify(record.data).length;
    if (chunk.length > 0 && (chunk.length >= chunkRecords || bytes + size > chunkBytes)) {
      await flush();
    }
    chunk.push(record);
    bytes += size;
  }
  await flush();
  await unmark(options, version);
  return result(version);
}

/**
 * Clears the importing mark once the read model holds the whole copy: the consolidator skips a
 * marked space, and a half-projected one would look to it like blocks without their summaries.
 */
async function unmark(options: ImportOptions, version: number): Promise<void> {
  const [last] = version > 0 ? await options.log.readSpace(options.target, version - 1, 1) : [];
  if (last && options.untilProjected) await options.untilProjected(last.position);
  await endSpaceImport(options.db, options.target);
}

/**
 * Reads the whole file through its checks and, for a resumed import, compares its first records
 * with those `target` already holds. Throws before anything is appended.
 */
async function verify(options: ImportOptions, present: number): Promise<ExportSummary> {
  const reading = readExport(options.open());
  // The file's first `present` records: what the target must hold to resume.
  const head: { recordId: string; type: string }[] = [];
  let count = 0;
  for (;;) {
    const next = await reading.next();
    if (next.done) {
      const summary = next.value;
      if (present > 0) await checkResumable(options, summary, head, present);
      return summary;
    }
    if (next.value.kind !== 'record') continue;
    count += 1;
    if (count % 500 === 0) options.onProgress?.({ phase: 'verifying', done: count, total: null });
    if (head.length < present) {
      head.push({ recordId: next.value.record.metadata.recordId, type: next.value.record.type });
    }
  }
}

async function checkResumable(
  { log, target }: ImportOptions,
  summary: ExportSummary,
  head: { recordId: string; type: string }[],
  present: number,
): Promise<void> {
  if (head.length < present) throw notEmpty(target, present);
  const { id } = idRewriter(summary.header.source, target, summary.recordIds);
  let index = 0;
  while (index < present) {
    const page = await log.readSpace(target, index, Math.min(500, present - index));
    if (page.length === 0) throw notEmpty(target, present);
    for (const stored of page) {
      const expected = head[index]!;
      if (stored.type !== expected.type || stored.metadata.recordId !== id(expected.recordId)) {
        throw notEmpty(target, present);
      }
      index += 1;
    }
  }
}

const notEmpty = (target: SpaceRef, present: number) =>
  conflict(
    'space_not_empty',
    `space '${target.spaceId}' already holds ${present} records that are not the start of this ` +
      'export; import into an empty space',
  );

const sameSpace = (a: SpaceRef, b: SpaceRef) =>
  a.tenantId === b.tenantId && a.spaceId === b.spaceId;

/**
 * Moves a record into `target`. Record ids are unique in a whole log, so in another space each
 * record of the file gets an id derived from the target and its old id: the same on every run,
 * which is how a resumed import recognises what it appended before. Causation and correlation ids
 * that name a record of the file follow it. Ids inside the records (events, blocks, messages) are
 * unique per space (MM-GEN-11) and stay.
 */
export function idRewriter(
  source: SpaceRef,
  target: SpaceRef,
  recordIds: ReadonlySet<string>,
): { id: (value: string) => string; record: (record: ExportedRecord) => NewRecord } {
  const same = sameSpace(source, target);
  const id = (value: string) => (same || !recordIds.has(value) ? value : derivedId(target, value));
  return {
    id,
    record(record) {
      const metadata = { ...record.metadata, tenantId: target.tenantId, spaceId: target.spaceId };
      metadata.recordId = id(metadata.recordId);
      if (metadata.causationId !== undefined) metadata.causationId = id(metadata.causationId);
      if (metadata.correlationId !== undefined) metadata.correlationId = id(metadata.correlationId);
      return { type: record.type, data: record.data, metadata };
    },
  };
}

function derivedId(target: SpaceRef, id: string): string {
  const hex = createHash('sha256')
    .update(`${target.tenantId}/${target.spaceId}\n${id}`)
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
