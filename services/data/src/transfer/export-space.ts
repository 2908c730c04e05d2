import type { SpaceRef } from '@stratagate/domain';
import type { MessageLog } from '@stratagate/log';
import {
  currentSchemaVersions,
  EXPORT_FORMAT,
  EXPORT_FORMAT_VERSION,
  sealLine,
} from './export-format.ts';

export interface ExportOptions {
  /** When the export was made (the header says so). */
  now: () => Date;
  /** Records read from the log per page (default 500). */
  pageSize?: number;
  /** After each page: records written so far, of `total`. */
  onProgress?: (progress: { done: number; total: number }) => void;
}

/**
 * The space's records as export lines (ADR 0045), up to the version the space had when the export
 * started: what is appended meanwhile belongs to a later export. Records are read a page at a time,
 * so a space of any size streams in bounded memory. Records whose content was erased are left out.
 */
export async function* exportSpace(
  log: MessageLog,
  space: SpaceRef,
  options: ExportOptions,
): AsyncGenerator<string, { records: number; digest: string }> {
  const total = await log.spaceVersion(space);
  const header = sealLine('', {
    kind: 'header',
    format: EXPORT_FORMAT,
    formatVersion: EXPORT_FORMAT_VERSION,
    source: { tenantId: space.tenantId, spaceId: space.spaceId },
    spaceVersion: total,
    exportedAt: options.now().toISOString(),
    schemaVersions: currentSchemaVersions(),
  });
  yield header.text;
  let digest = header.digest;
  let records = 0;
  let after = 0;
  const pageSize = options.pageSize ?? 500;
  while (after < total) {
    const page = await log.readSpace(space, after, Math.min(pageSize, total - after));
    if (page.length === 0) break;
    let text = '';
    for (const stored of page) {
      after = stored.spaceVersion;
      if (stored.spaceVersion > total) break;
      // Its content is gone for good (ADR 0046); the erasure's own record, in clear, goes along.
      if (stored.erased) continue;
      const line = sealLine(digest, {
        kind: 'record',
        spaceVersion: stored.spaceVersion,
        type: stored.type,
        metadata: stored.metadata,
        recordedAt: stored.recordedAt,
        data: stored.data,
      });
      text += line.text;
      digest = line.digest;
      records += 1;
    }
    yield text;
    options.onProgress?.({ done: after, total });
  }
  const end = sealLine(digest, { kind: 'end', records });
  yield end.text;
  return { records, digest: end.digest };
}
