import {
  decodeRecord,
  isKnownRecordType,
  RecordDecodeError,
  RecordMetadata,
  type NewRecord,
  type SpaceRef,
} from '@stratagate/domain';
import {
  EXPORT_FORMAT,
  EXPORT_FORMAT_VERSION,
  ExportEndLine,
  ExportFileInvalid,
  ExportHeader,
  ExportRecordLine,
  lineDigest,
} from './export-format.ts';
import { ndjsonLines } from './ndjson-lines.ts';

/** A verified record of an export file, as it was stored in the source space. */
export interface ExportedRecord extends NewRecord {
  /** Its version in the source space. */
  sourceVersion: number;
  /** Line of the file it came from. */
  line: number;
}

export interface ExportSummary {
  header: ExportHeader;
  records: number;
  /** The end line's digest: the whole file's. */
  digest: string;
  /** Record ids in the file (the importer rewrites exactly these). */
  recordIds: Set<string>;
}

export type ExportItem =
  { kind: 'header'; header: ExportHeader } | { kind: 'record'; record: ExportedRecord };

const StrictMetadata = RecordMetadata.strict();

/**
 * Reads an export file line by line, checking each before it is handed on: the header's format
 * and version, every line's digest chain, each record's metadata, type, schema version and data
 * (validated and upcast as the log's readers do), versions rising, ids unique, and an end line
 * whose count and digest match, with nothing after it. The first failure throws
 * `ExportFileInvalid` naming its line; a consumer that applies records only after the generator
 * returned its summary applies nothing from a bad file.
 */
export async function* readExport(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
): AsyncGenerator<ExportItem, ExportSummary> {
  let header: ExportHeader | null = null;
  let digest = '';
  let records = 0;
  let lastVersion = 0;
  let end: { line: number; digest: string } | null = null;
  const recordIds = new Set<string>();
  const idempotencyKeys = new Set<string>();

  for await (const line of ndjsonLines(source)) {
    const fail = (reason: string): never => {
      throw new ExportFileInvalid(line.number, reason);
    };
    if (end) fail('there is more after the end line');
    if (line.text.trim() === '') fail('the line is empty');
    let json: unknown;
    try {
      json = JSON.parse(line.text);
    } catch {
      fail(
        line.terminated
          ? 'the line is not JSON'
          : 'the file ends inside this line (it was cut short)',
      );
    }
    const kind = (json as { kind?: unknown } | null)?.kind;
    if (!header) {
      const format = (json as { format?: unknown } | null)?.format;
      if (kind !== 'header' || format !== EXPORT_FORMAT) {
        fail(`not a StrataGate space export: the first line must be its "${EXPORT_FORMAT}" header`);
      }
      const version = (json as { formatVersion?: unknown }).formatVersion;
      if (typeof version === 'number' && version > EXPORT_FORMAT_VERSION) {
        fail(
          `written in export format version ${version}; this StrataGate reads version ${EXPORT_FORMAT_VERSION}`,
        );
      }
      const parsed = ExportHeader.safeParse(json);
      if (!parsed.success) fail(`the header is invalid: ${issues(parsed.error)}`);
      header = parsed.data!;
      digest = checkDigest(digest, header, fail);
      yield { kind: 'header', header };
      continue;
    }
    if (kind === 'end') {
      const parsed = ExportEndLine.safeParse(json);
      if (!parsed.success) fail(`the end line is invalid: ${issues(parsed.error)}`);
      digest = checkDigest(digest, parsed.data!, fail);
      if (parsed.data!.records !== records) {
        fail(`the end line counts ${parsed.data!.records} records, the file holds ${records}`);
      }
      end = { line: line.number, digest };
      continue;
    }
    if (kind !== 'record') fail('expected a record line or the end line');
    const parsed = ExportRecordLine.safeParse(json);
    if (!parsed.success) fail(`the record line is invalid: ${issues(parsed.error)}`);
    const rec = parsed.data!;
    digest = checkDigest(digest, rec, fail);
    const record = checkRecord(rec, header, lastVersion, fail);
    if (recordIds.has(record.metadata.recordId)) {
      fail(`record id ${record.metadata.recordId} appears twice`);
    }
    const key = record.metadata.idempotencyKey;
    if (key !== undefined && idempotencyKeys.has(key)) {
      fail(`idempotency key ${key} appears twice`);
    }
    recordIds.add(record.metadata.recordId);
    if (key !== undefined) idempotencyKeys.add(key);
    lastVersion = rec.spaceVersion;
    records += 1;
    yield { kind: 'record', record: { ...record, line: line.number } };
  }
  if (!header) throw new ExportFileInvalid(1, 'the file is empty');
  if (!end) {
    throw new ExportFileInvalid(
      records + 2,
      'the file ends before its end line (it was cut short)',
    );
  }
  return { header, records, digest: end.digest, recordIds };
}

function checkDigest(
  previous: string,
  line: Record<string, unknown> & { sha256: string },
  fail: (reason: string) => never,
): string {
  const expected = lineDigest(previous, line);
  if (expected !== line.sha256) {
    fail('the checksum does not match: this line or one before it was changed, added or removed');
  }
  return expected;
}

function checkRecord(
  rec: ExportRecordLine,
  header: ExportHeader,
  lastVersion: number,
  fail: (reason: string) => never,
): Omit<ExportedRecord, 'line'> {
  const metadata = StrictMetadata.safeParse(rec.metadata);
  if (!metadata.success) fail(`the record's metadata is invalid: ${issues(metadata.error)}`);
  const meta = metadata.data!;
  const source: SpaceRef = header.source;
  if (meta.tenantId !== source.tenantId || meta.spaceId !== source.spaceId) {
    fail(`the record belongs to ${meta.tenantId}/${meta.spaceId}, not to the exported space`);
  }
  if (rec.spaceVersion <= lastVersion) fail('space versions must rise from line to line');
  if (rec.spaceVersion > header.spaceVersion) {
    fail(`space version ${rec.spaceVersion} is past the header's ${header.spaceVersion}`);
  }
  if (!isKnownRecordType(rec.type)) {
    fail(`record type ${rec.type} is unknown to this version of StrataGate`);
  }
  try {
    decodeRecord({
      type: rec.type,
      data: rec.data,
      metadata: meta,
      position: 0,
      spaceVersion: rec.spaceVersion,
      recordedAt: rec.recordedAt,
    });
  } catch (error) {
    if (!(error instanceof RecordDecodeError)) throw error;
    fail(error.message.replace(' at position 0', ''));
  }
  return { type: rec.type, data: rec.data, metadata: meta, sourceVersion: rec.spaceVersion };
}

function issues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(line)'}: ${i.message}`)
    .join('; ');
}
