import { z } from 'zod';
import { Count, requestSchema, responseSchema } from '@stratagate/http';
import { EXPORT_FORMAT, EXPORT_FORMAT_VERSION } from './transfer/export-format.ts';

const HEADER_EXAMPLE = {
  kind: 'header',
  format: EXPORT_FORMAT,
  formatVersion: EXPORT_FORMAT_VERSION,
  source: { tenantId: 'local', spaceId: 'project:acme' },
  spaceVersion: 2,
  exportedAt: '2026-12-06T10:00:00.000Z',
  schemaVersions: { TurnRecorded: 1, BlockSealed: 1 },
  sha256: '6c1a0f5ba2d4c4e2a58f0b8d9b0cbd1a0e7c2d8e6a4b1f3c5d7e9f0a1b2c3d4e',
};

const FILE_DESCRIPTION =
  'NDJSON: a header line (`kind: "header"`, the format, its version, the source space, the record schema versions), one line per record in space order (`kind: "record"`: its space version, type, metadata, data), and an end line (`kind: "end"`, the record count). Every line carries `sha256`, chained over the line before, so a changed, missing or cut line is found.';
const FILE_EXAMPLE = `${JSON.stringify(HEADER_EXAMPLE)}\n…\n`;

/** An export file as an import's body: NDJSON, documented as the text it is. */
export const ExportFileBody = requestSchema(z.string().describe(FILE_DESCRIPTION), FILE_EXAMPLE);

/** An export file as the export's answer. */
export const ExportFileDownload = responseSchema(
  z.string().describe(FILE_DESCRIPTION),
  'The export file (streamed).',
  FILE_EXAMPLE,
);

export const ImportReply = responseSchema(
  z.object({
    source: z.object({ tenantId: z.string(), spaceId: z.string() }),
    target: z.object({ tenantId: z.string(), spaceId: z.string() }),
    records: Count.describe('records in the file, all now in the space'),
    spaceVersion: Count.describe("the space's version after the import"),
    resumedFrom: Count.describe(
      'records an interrupted run of the same import had already written (0: a fresh import)',
    ),
    idsRewritten: z
      .boolean()
      .describe('record ids were rewritten because the space is another than the source'),
    digest: z.string().describe("the file's checksum (its end line's)"),
  }),
  'Every record of the file is in the space; the read model follows as it is projected.',
  {
    source: { tenantId: 'local', spaceId: 'project:acme' },
    target: { tenantId: 'team-b', spaceId: 'project:acme-copy' },
    records: 2,
    spaceVersion: 2,
    resumedFrom: 0,
    idsRewritten: true,
    digest: '9f2b5c0e4d6a8b1c3e5f7a9b0c2d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d',
  },
);
export type ImportReply = z.infer<typeof ImportReply>;
