import { z } from 'zod';
import { IMPORT_ACTIONS, IMPORT_MAX_CANDIDATES } from '@stratagate/domain';
import { counter, IdParam, requestSchema, responseSchema } from '@stratagate/http';

const EXAMPLE_TEXT = JSON.stringify({
  format: 'stratagate.external-memory.v2',
  sourceType: 'external_ai_memory_export',
  sourceSystem: 'OtherAI',
  coverage: 'partial',
  candidates: [
    {
      memoryKind: 'fact',
      category: 'project',
      title: 'Project Atlas uses pnpm',
      summary: 'Project Atlas switched from npm to pnpm for faster installs.',
      tags: ['pnpm'],
      temporal: { originalText: 'last spring', precision: 'unknown', basis: 'unknown' },
      scope: 'project',
      confidence: 0.9,
    },
  ],
});
const IMPORT_ID = 'imp_7f3c2a9e51d84b0c9e2f6a1b3c5d7e90';
const EVT_NEW = 'evt_5b0e1f6a2c3d4e5f60718293a4b5c6d7';
const EVT_NPM = 'evt_2a1f0e9d8c7b6a5948372615a4b3c2d1';

export const CreateImportBody = requestSchema(
  z.strictObject({
    text: z
      .string()
      .min(1)
      .max(1_000_000)
      .describe(
        'The export of another AI as it came: JSON in the `stratagate.external-memory.v2` format (v1 is accepted), optionally in a Markdown code fence',
      ),
    importId: IdParam.optional().describe(
      'Names the import; sending the same text again under it resumes an interrupted analysis',
    ),
    topK: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(5)
      .describe('Existing memories each candidate is compared with'),
  }),
  { text: EXAMPLE_TEXT, importId: IMPORT_ID },
  { text: '```json\n' + EXAMPLE_TEXT + '\n```', topK: 8 },
);
export type CreateImportBody = z.infer<typeof CreateImportBody>;

const Action = z.enum(IMPORT_ACTIONS);

export const ConfirmImportBody = requestSchema(
  z.strictObject({
    items: z
      .array(
        z.strictObject({
          index: z
            .number()
            .int()
            .min(0)
            .max(IMPORT_MAX_CANDIDATES - 1),
          action: Action.describe('What to do with this candidate'),
          existingEventIds: z
            .array(IdParam)
            .max(20)
            .default([])
            .describe('For MERGE, SUPERSEDE and CONFLICT: which of its matches it concerns'),
        }),
      )
      .min(1)
      .max(IMPORT_MAX_CANDIDATES),
  }),
  { items: [{ index: 0, action: 'SUPERSEDE', existingEventIds: [EVT_NPM] }] },
  { items: [{ index: 3, action: 'ADD' }] },
);
export type ConfirmImportBody = z.infer<typeof ConfirmImportBody>;

export const CommitImportBody = requestSchema(
  z.strictObject({
    baseRevision: z
      .number()
      .int()
      .min(0)
      .max(1_000_000_000_000)
      .describe('the `baseRevision` of the preview being committed'),
  }),
  { baseRevision: 42 },
);
export type CommitImportBody = z.infer<typeof CommitImportBody>;

const ImportItem = z.object({
  index: counter('position of the candidate in the export'),
  title: z.string().nullable().describe('null once the import is undone or erased'),
  summary: z.string().nullable(),
  memoryKind: z.string().nullable(),
  category: z.string().nullable(),
  action: Action,
  existingEventIds: z.array(z.string()),
  matches: z
    .array(
      z.object({
        id: z.string(),
        title: z.string(),
        summary: z.string().describe('cut to 300 characters'),
        status: z.string(),
      }),
    )
    .max(20)
    .describe('the existing memories this candidate was compared with (until the commit)'),
  mergedCandidate: z
    .object({ title: z.string(), summary: z.string(), tags: z.array(z.string()).optional() })
    .nullable(),
  reason: z.string().nullable(),
  confidence: z.number().min(0).max(1).describe('how sure the decision is: ordering only'),
  requiresConfirmation: z.boolean(),
  confirmed: z.boolean(),
  decidedBy: z.enum(['fingerprint', 'offline', 'model', 'user']),
  eventId: z.string().nullable().describe('the event the commit wrote for it'),
});

const ImportViewShape = z.object({
  importId: z.string(),
  state: z
    .enum(['processing', 'awaiting_confirmation', 'ready', 'committed', 'undone', 'failed'])
    .describe(
      'processing: candidates are being compared; awaiting_confirmation: some need the user; ready: can be committed as it is; failed: send it again to resume',
    ),
  baseRevision: counter('the space revision the preview was made against; commit with it'),
  recovered: z
    .boolean()
    .describe('the text was not valid JSON and was recovered: every item needs confirmation'),
  source: z
    .object({
      format: z.enum(['v1', 'v2']),
      sourceSystem: z.string(),
      exportedAt: z.string().nullable(),
      coverage: z.enum(['full', 'partial', 'limited']),
      coverageNote: z.string().nullable(),
      uncertainItems: z.array(z.string()),
    })
    .nullable(),
  counts: z.object({
    candidates: counter('candidates in the export'),
    decided: counter('candidates decided so far'),
    needsConfirmation: counter('decided items that need the user and are not confirmed'),
    add: counter('ADD'),
    merge: counter('MERGE'),
    supersede: counter('SUPERSEDE'),
    conflict: counter('CONFLICT'),
    ignore: counter('IGNORE'),
  }),
  items: z.array(ImportItem).max(IMPORT_MAX_CANDIDATES).describe('decided items, by index'),
  error: z.string().nullable().describe('why the analysis stopped (state failed)'),
  commit: z
    .object({
      position: counter('log position of the import record', 1),
      sourceBlockId: z.string(),
      addedEventIds: z.array(z.string()),
      changedEventIds: z.array(z.string()),
    })
    .nullable(),
  undo: z.object({ position: counter('log position of the undo record', 1) }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const PREVIEW_EXAMPLE: z.output<typeof ImportViewShape> = {
  importId: IMPORT_ID,
  state: 'awaiting_confirmation',
  baseRevision: 42,
  recovered: false,
  source: {
    format: 'v2',
    sourceSystem: 'OtherAI',
    exportedAt: null,
    coverage: 'partial',
    coverageNote: null,
    uncertainItems: [],
  },
  counts: {
    candidates: 1,
    decided: 1,
    needsConfirmation: 1,
    add: 0,
    merge: 0,
    supersede: 1,
    conflict: 0,
    ignore: 0,
  },
  items: [
    {
      index: 0,
      title: 'Project Atlas uses pnpm',
      summary: 'Project Atlas switched from npm to pnpm for faster installs.',
      memoryKind: 'fact',
      category: 'project',
      action: 'SUPERSEDE',
      existingEventIds: [EVT_NPM],
      matches: [
        {
          id: EVT_NPM,
          title: 'Project Atlas uses npm',
          summary: 'Atlas installs its packages with npm.',
          status: 'active',
        },
      ],
      mergedCandidate: null,
      reason: 'overlaps existing memories and says something changed',
      confidence: 0.6,
      requiresConfirmation: true,
      confirmed: false,
      decidedBy: 'offline',
      eventId: null,
    },
  ],
  error: null,
  commit: null,
  undo: null,
  createdAt: '2026-12-05T10:00:00.000Z',
  updatedAt: '2026-12-05T10:00:01.000Z',
};

export const ImportView = responseSchema(
  ImportViewShape,
  'The import job: its preview (what each candidate would do), or what its commit did.',
  PREVIEW_EXAMPLE,
  {
    ...PREVIEW_EXAMPLE,
    state: 'committed',
    counts: { ...PREVIEW_EXAMPLE.counts, needsConfirmation: 0 },
    items: PREVIEW_EXAMPLE.items.map((item) => ({
      ...item,
      summary: null,
      memoryKind: null,
      category: null,
      matches: [],
      confirmed: true,
      decidedBy: 'user' as const,
      eventId: EVT_NEW,
    })),
    commit: {
      position: 1812,
      sourceBlockId: 'blk_9a8b7c6d5e4f30211203f4e5d6c7b8a9',
      addedEventIds: [EVT_NEW],
      changedEventIds: [EVT_NPM],
    },
    updatedAt: '2026-12-05T10:02:00.000Z',
  },
);
export type ImportView = z.infer<typeof ImportView>;
