import { z } from 'zod';
import { NEXT_STRATEGIES, VERDICTS } from '@stratagate/domain';
import {
  Count,
  counter,
  IdParam,
  idempotencyKey,
  requestSchema,
  responseSchema,
  Truncated,
} from '@stratagate/http';
import {
  AGENT_THREAD,
  BLOCK_1,
  EVT_CI,
  EVT_PNPM,
  exampleEventCard,
  MSG_CI,
  MSG_CI_REPLY,
  NODE_ATLAS,
} from './api-examples.ts';
import { EventCardSchema } from './memory-events.schema.ts';

const Text = z.string().max(2000).optional();

export const ExpandEventBody = requestSchema(
  z.strictObject({
    threadId: IdParam.describe('the session whose evidence batch this expansion opens'),
  }),
  { threadId: AGENT_THREAD },
);

export const ExpandEventReply = responseSchema(
  z.object({
    batchId: z.string().describe('the evidence batch this expansion opened'),
    evidenceRefs: z.array(z.string()).describe('`event:<id>`'),
    event: EventCardSchema,
  }),
  'The event; an evidence batch holding `event:<id>` is open.',
  { batchId: 'batch_4', evidenceRefs: [`event:${EVT_PNPM}`], event: exampleEventCard },
);

export const EventStateChangeReply = responseSchema(
  z.object({
    eventId: z.string(),
    change: z.enum(['pinned', 'unpinned', 'forgotten', 'restored']),
    position: counter('log position of the change record', 1).nullable(),
  }),
  'Accepted: the change is recorded; the read model applies it asynchronously.',
  { eventId: EVT_PNPM, change: 'pinned', position: 27 },
);

export const AssessBody = requestSchema(
  z.strictObject({
    batchId: IdParam.optional().describe('defaults to the latest batch of the thread'),
    verdict: z.string().max(40).describe('sufficient | partial | wrong'),
    evidence_refs: z.array(z.unknown()).max(64).default([]),
    fit: Text,
    missing: Text,
    next_strategy: z.string().max(40).optional(),
  }),
  {
    batchId: 'batch_2',
    verdict: 'sufficient',
    evidence_refs: [`event:${EVT_PNPM}`],
    fit: 'states which package manager Atlas uses now',
    next_strategy: 'answer',
  },
  {
    verdict: 'partial',
    evidence_refs: [`event:${EVT_CI}`],
    fit: 'says the CI was pending',
    missing: 'whether the CI passed after the migration',
    next_strategy: 'search_raw',
  },
);

export const AssessReply = responseSchema(
  z.object({
    batchId: z.string(),
    batchStatus: z.enum(['unresolved', 'recorded']),
    latestBatchId: z.string().describe('the newest batch of the thread'),
    verdict: z
      .enum(VERDICTS)
      .describe('`sufficient` only with ≥ 1 accepted ref and `nextStrategy: answer`'),
    evidenceRefs: z.array(z.string()).describe('accepted refs (≤ 8), trimmed'),
    rejectedEvidenceRefs: z.array(
      z.object({
        inputIndex: Count,
        ref: z.unknown().describe('the value exactly as sent'),
        reason: z.enum(['invalid_ref', 'duplicate', 'not_in_batch', 'limit_exceeded']),
        detail: z.string(),
      }),
    ),
    fit: z.string(),
    missing: z.string(),
    nextStrategy: z.enum(NEXT_STRATEGIES),
  }),
  'The normalised assessment as recorded.',
  {
    batchId: 'batch_2',
    batchStatus: 'unresolved',
    latestBatchId: 'batch_2',
    verdict: 'sufficient',
    evidenceRefs: [`event:${EVT_PNPM}`],
    rejectedEvidenceRefs: [
      {
        inputIndex: 1,
        ref: `event:${EVT_CI}x`,
        reason: 'not_in_batch',
        detail: `event:${EVT_CI}x is not a result of this batch`,
      },
    ],
    fit: 'states which package manager Atlas uses now',
    missing: '',
    nextStrategy: 'answer',
  },
);

export const AdoptBody = requestSchema(
  z.strictObject({
    batchId: IdParam.optional().describe('defaults to the latest batch of the thread'),
    receiptId: idempotencyKey(
      z
        .string()
        .max(200)
        .refine((s) => s.trim().length > 0, 'receiptId must not be blank')
        .describe('stable per agent call, reused on retry (e.g. <session>:tool:<toolCallId>)'),
    ),
    evidence_refs: z
      .array(z.unknown())
      .max(64)
      .describe('only evidence actually used; [] closes the batch'),
  }),
  {
    batchId: 'batch_2',
    receiptId: `${AGENT_THREAD}:tool:call_1`,
    evidence_refs: [`event:${EVT_PNPM}`],
  },
  { receiptId: `${AGENT_THREAD}:tool:call_7`, evidence_refs: [] },
);

export const AdoptReply = responseSchema(
  z.object({
    batchId: z.string(),
    batchStatus: z.literal('recorded'),
    receiptId: z.string(),
    incremented: Count.describe('memory events reinforced'),
    evidenceRefs: z.array(z.string()).describe('the adopted refs'),
    duplicateEvidenceRefs: z.array(z.string()),
    eventIds: z.array(z.string()).describe('the reinforced memory events'),
    citations: z.array(z.object({ evidenceRef: z.string(), batchId: z.string() })),
    unresolvedBatchIds: z
      .array(z.string())
      .describe('batches of the thread still to assess or adopt before answering'),
  }),
  'The adoption as recorded (the same answer again for a retried `receiptId`).',
  {
    batchId: 'batch_2',
    batchStatus: 'recorded',
    receiptId: `${AGENT_THREAD}:tool:call_1`,
    incremented: 1,
    evidenceRefs: [`event:${EVT_PNPM}`],
    duplicateEvidenceRefs: [],
    eventIds: [EVT_PNPM],
    citations: [{ evidenceRef: `event:${EVT_PNPM}`, batchId: 'batch_2' }],
    unresolvedBatchIds: ['batch_1', 'batch_3'],
  },
);

export const BatchListReply = responseSchema(
  z.object({
    nextOffset: counter('the `offset` of the next page').nullable(),
    truncated: Truncated,
    batches: z.array(
      z.object({
        batchId: z.string(),
        operation: z.string().describe('search_events, expand_event, search_graph, search_raw, …'),
        query: z.string(),
        status: z.enum(['unresolved', 'recorded']),
        verdict: z.enum(VERDICTS).nullable().describe('the last assessment, if any'),
        evidenceRefs: z.array(z.string()),
        acceptedRefs: z.array(z.string()),
        openedAt: z.string(),
      }),
    ),
  }),
  'Evidence batches of the thread, oldest first.',
  {
    nextOffset: null,
    truncated: false,
    batches: [
      {
        batchId: 'batch_1',
        operation: 'search_raw',
        query: 'pnpm migration',
        status: 'unresolved',
        verdict: null,
        evidenceRefs: [`raw:${BLOCK_1}:${MSG_CI}:2`, `raw:${BLOCK_1}:${MSG_CI_REPLY}:3`],
        acceptedRefs: [],
        openedAt: '2023-05-09T09:14:05.905Z',
      },
      {
        batchId: 'batch_3',
        operation: 'search_graph',
        query: 'Atlas package manager',
        status: 'unresolved',
        verdict: 'partial',
        evidenceRefs: [`graph-node:${NODE_ATLAS}`],
        acceptedRefs: [`graph-node:${NODE_ATLAS}`],
        openedAt: '2023-05-09T09:14:06.332Z',
      },
    ],
  },
);

export type ExpandEventReply = z.infer<typeof ExpandEventReply>;
export type EventStateChangeReply = z.infer<typeof EventStateChangeReply>;
export type AssessReply = z.infer<typeof AssessReply>;
export type AdoptReply = z.infer<typeof AdoptReply>;
export type BatchListReply = z.infer<typeof BatchListReply>;
