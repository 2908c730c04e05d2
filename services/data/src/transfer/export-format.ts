import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson, CURRENT_SCHEMA_VERSION } from '@stratagate/domain';

/**
 * A space's records as NDJSON (ADR 0045): a header line, one line per record in space order, an
 * end line. Every line carries `sha256`, the digest of the previous line's digest and the line's
 * own canonical JSON, so an edited line fails its own check, a dropped or reordered line fails the
 * next one, and the end line's digest covers the whole file.
 */
export const EXPORT_FORMAT = 'stratagate.space-export';
export const EXPORT_FORMAT_VERSION = 1;
export const EXPORT_MEDIA_TYPE = 'application/x-ndjson';

const Digest = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 digest in hex');
const Id = z.string().min(1);

export const ExportHeader = z.strictObject({
  kind: z.literal('header'),
  format: z.literal(EXPORT_FORMAT),
  formatVersion: z.number().int().positive(),
  source: z.strictObject({ tenantId: Id, spaceId: Id }),
  /** The space's version when the export started: records after it are not in the file. */
  spaceVersion: z.number().int().min(0),
  exportedAt: z.string().min(1),
  /** Record schema versions of the exporting build: what an importer must understand. */
  schemaVersions: z.record(z.string(), z.number().int().positive()),
  sha256: Digest,
});
export type ExportHeader = z.infer<typeof ExportHeader>;

export const ExportRecordLine = z.strictObject({
  kind: z.literal('record'),
  /** The record's version in the source space (gaps where erased records were left out). */
  spaceVersion: z.number().int().positive(),
  type: z.string().min(1),
  metadata: z.record(z.string(), z.unknown()),
  /** Log time in the source; the importing log assigns its own. */
  recordedAt: z.string().min(1),
  data: z.unknown(),
  sha256: Digest,
});
export type ExportRecordLine = z.infer<typeof ExportRecordLine>;

export const ExportEndLine = z.strictObject({
  kind: z.literal('end'),
  records: z.number().int().min(0),
  sha256: Digest,
});
export type ExportEndLine = z.infer<typeof ExportEndLine>;

/** The digest a line carries: over the previous digest and the line without its own digest. */
export function lineDigest(previous: string, line: Record<string, unknown>): string {
  const { sha256: _own, ...rest } = line;
  return createHash('sha256')
    .update(previous)
    .update('\n')
    .update(canonicalJson(rest))
    .digest('hex');
}

/** `line` with its digest, as one NDJSON line (newline included). */
export function sealLine<T extends Record<string, unknown>>(
  previous: string,
  line: T,
): { text: string; digest: string } {
  const digest = lineDigest(previous, line);
  return { text: `${JSON.stringify({ ...line, sha256: digest })}\n`, digest };
}

export const currentSchemaVersions = (): Record<string, number> => ({ ...CURRENT_SCHEMA_VERSION });

/** A file that is not a complete, unchanged export: names the line where reading stopped. */
export class ExportFileInvalid extends Error {
  readonly code = 'export_file_invalid';
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = 'ExportFileInvalid';
  }
}
