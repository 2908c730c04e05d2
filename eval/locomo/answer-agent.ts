/**
 * One LoCoMo question answered by a model-driven agent over the node's HTTP API, through the
 * evidence gate (MM-GATE): recall → the model picks a retrieval (search_events, search_raw,
 * expand_event), each opening a batch → the model assesses the batch (verdict, evidence_refs,
 * fit, missing, next_strategy), which the gate normalises → … until the gate says sufficient or
 * the round budget ends → the model drafts the answer and names the refs it used → every batch is
 * closed by an adoption (the used refs of the sufficient batch, `[]` for the rest) → only then is
 * the answer final (MM-GATE-10). Then the judge grades it.
 */
import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import { InvalidModelOutputError, ModelError } from '@stratagate/model';
import type { OperationInput, StrataGate } from '@stratagate/client';
// Not exported from @stratagate/model's index (yet): imported from its file.
import { JsonChatOutputError, type JsonChat, type JsonChatCost } from '@stratagate/model';
import {
  answerPrompt,
  AnswerSchema,
  assessPrompt,
  assessSchema,
  judgePrompt,
  JudgeSchema,
  planPrompt,
  planSchema,
  PROMPT_VERSIONS,
  UNCERTAIN_PREFIX,
  when,
  type AgentTool,
  type AssessedBatch,
  type EvidenceItem,
  type RecallView,
} from './answer-prompts.ts';

type AssessBody = Omit<OperationInput<'assessEvidence'>['body'], 'batchId'>;

/** Agent-facing defaults of MM-RET (limit 6, raw scope space): what an agent gets unasked. */
export const AGENT_SETTINGS = {
  searchEventsLimit: 6,
  searchRawLimit: 6,
  searchRawScope: 'space',
  temperature: 0,
  tools: ['search_events', 'search_raw', 'expand_event'],
} as const;

export interface TokenCount {
  prompt: number;
  completion: number;
  /** HTTP calls to the model, structured retries included. */
  calls: number;
  /** Calls whose reply carried no usage: their tokens are missing from the sums. */
  callsWithoutUsage: number;
}

export const noTokens = (): TokenCount => ({
  prompt: 0,
  completion: 0,
  calls: 0,
  callsWithoutUsage: 0,
});

export function addTokens(into: TokenCount, add: TokenCount): TokenCount {
  into.prompt += add.prompt;
  into.completion += add.completion;
  into.calls += add.calls;
  into.callsWithoutUsage += add.callsWithoutUsage;
  return into;
}

const tokensOf = (cost: JsonChatCost): TokenCount => ({
  prompt: cost.usage.inputTokens,
  completion: cost.usage.outputTokens,
  calls: cost.calls,
  callsWithoutUsage: cost.callsWithoutUsage,
});

export interface BatchRecord {
  batchId: string;
  tool: AgentTool;
  query: string;
  refs: string[];
  /** Who wrote the assessment: the model, or the harness closing a batch after an error. */
  assessedBy: 'model' | 'harness' | null;
  /** As the model wrote it (before the gate's normalisation). */
  requestedVerdict: string | null;
  /** The gate's normalised assessment (MM-GATE-5). */
  verdict: string | null;
  evidenceRefs: string[];
  rejectedEvidenceRefs: number;
  nextStrategy: string | null;
  fit: string;
  missing: string;
  receiptId: string | null;
  adoptedRefs: string[];
  incremented: number;
  /** Memory events the adoption reinforced (MM-WGT-3). */
  eventIds: string[];
}

function openedBatch(batchId: string, tool: AgentTool, query: string, refs: string[]): BatchRecord {
  return {
    batchId,
    tool,
    query,
    refs,
    assessedBy: null,
    requestedVerdict: null,
    verdict: null,
    evidenceRefs: [],
    rejectedEvidenceRefs: 0,
    nextStrategy: null,
    fit: '',
    missing: '',
    receiptId: null,
    adoptedRefs: [],
    incremented: 0,
    eventIds: [],
  };
}

export interface AgentOutcome {
  threadId: string;
  answer: string;
  /** No batch reached a sufficient verdict: the answer carries UNCERTAIN_PREFIX. */
  uncertain: boolean;
  /** Every round was used without a sufficient verdict. */
  budgetExhausted: boolean;
  rounds: number;
  recall: { events: number; graphNodes: number };
  usedRefs: string[];
  batches: BatchRecord[];
  /** Unresolved batches of the thread after adoption: always [] or the run stops. */
  unresolvedAfter: string[];
  tokens: TokenCount;
  /** Recall to closed batches (the final answer is ready), model and HTTP time included. */
  ms: number;
  error: string | null;
}

interface EventView {
  id: string;
  title: string;
  summary: string;
  sourceTime?: string | null;
  createdAt?: string;
  status?: string;
  quotes?: string[];
  tags?: string[];
  temporal?: {
    mentionedAt?: string;
    happenedStart?: string;
    happenedEnd?: string;
    originalText?: string;
    participants?: string[];
  };
}

interface EventHit extends EventView {
  ref: string;
}

interface RawCard {
  messageId: string;
  role: string;
  name?: string;
  content: string;
  createdAt: string;
}

interface RawHit {
  ref: string;
  message: RawCard;
  nearby: RawCard[];
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * An event as the model sees it: when it was said, the text, when it happened if known, and a
 * non-active status; `full` (an expanded event) adds quotes, participants and tags.
 */
function eventText(e: EventView, full = false): string {
  const t = e.temporal ?? {};
  const summary = oneLine(e.summary);
  const title = oneLine(e.title);
  const body = summary.includes(title.replace(/^[^:]+:\s*/, '')) ? summary : `${title}. ${summary}`;
  const parts = [`(${when(t.mentionedAt ?? e.sourceTime ?? e.createdAt)}) ${body}`];
  if (t.happenedStart) {
    const end = t.happenedEnd && t.happenedEnd !== t.happenedStart ? ` to ${t.happenedEnd}` : '';
    const said = t.originalText ? ` ("${oneLine(t.originalText)}")` : '';
    parts.push(`Happened: ${t.happenedStart}${end}${said}.`);
  }
  if (e.status && e.status !== 'active') parts.push(`Status: ${e.status}.`);
  if (full) {
    const quotes = (e.quotes ?? []).filter((q) => q.trim() !== '' && !summary.includes(q.trim()));
    if (quotes.length)
      parts.push(`Quotes: ${quotes.map((q) => JSON.stringify(oneLine(q))).join('; ')}.`);
    if (t.participants?.length) parts.push(`Participants: ${t.participants.join(', ')}.`);
    if (e.tags?.length) parts.push(`Tags: ${e.tags.join(', ')}.`);
  }
  return parts.join(' ');
}

function rawText(hit: RawHit): string {
  const line = (m: RawCard) => `${when(m.createdAt)} ${m.name ?? m.role}: ${oneLine(m.content)}`;
  const context = hit.nearby.filter((m) => m.messageId !== hit.message.messageId);
  return [line(hit.message), ...context.map((m) => `    context: ${line(m)}`)].join('\n');
}

/** Model failures are part of what is measured; anything else (the system, the harness) stops the run. */
function isModelFailure(error: unknown): boolean {
  return error instanceof ModelError || error instanceof InvalidModelOutputError;
}

export interface AgentInput {
  /** The API, with the key of the space's tenant. */
  client: StrataGate;
  spaceId: string;
  /** A fresh thread per question and repeat: its batches are exactly this question's. */
  threadId: string;
  question: string;
  speakers: readonly [string, string];
  rounds: number;
  chat: JsonChat;
}

export async function answerQuestion(input: AgentInput): Promise<AgentOutcome> {
  const { client, spaceId, question, speakers, threadId } = input;
  const started = performance.now();
  const tokens = noTokens();
  const batches: BatchRecord[] = [];
  const views: AssessedBatch[] = [];
  const knownEvents = new Set<string>();
  let recall = { events: 0, graphNodes: 0 };
  let rounds = 0;
  let confirmed = false;
  let answer = '';
  let usedRefs: string[] = [];
  let error: string | null = null;

  async function ask<S extends z.ZodType>(
    messages: Parameters<JsonChat['complete']>[0],
    schema: S,
    name: string,
  ): Promise<z.output<S>> {
    try {
      const result = await input.chat.complete(messages, schema, {
        name,
        temperature: AGENT_SETTINGS.temperature,
      });
      addTokens(tokens, tokensOf(result));
      return result.value;
    } catch (e) {
      if (e instanceof JsonChatOutputError) {
        addTokens(tokens, tokensOf(e.cost));
      }
      throw e;
    }
  }

  async function retrieve(step: { tool: AgentTool; query: string }): Promise<void> {
    let opened: { batchId: string; evidenceRefs: string[] };
    let items: EvidenceItem[];
    if (step.tool === 'expand_event') {
      const res = await client.call('expandEvent', {
        spaceId,
        eventId: step.query,
        body: { threadId },
      });
      const e = res.event as EventView;
      items = [{ ref: `event:${e.id}`, text: eventText(e, true) }];
      opened = res;
    } else if (step.tool === 'search_events') {
      const res = await client.call('searchEvents', {
        spaceId,
        threadId,
        body: { query: step.query, limit: AGENT_SETTINGS.searchEventsLimit },
      });
      const hits = res.hits as EventHit[];
      for (const h of hits) knownEvents.add(h.id);
      items = hits.map((h) => ({ ref: h.ref, text: `event_id ${h.id} ${eventText(h)}` }));
      opened = res;
    } else {
      const res = await client.call('searchRawMessages', {
        spaceId,
        threadId,
        body: {
          query: step.query,
          limit: AGENT_SETTINGS.searchRawLimit,
          scope: AGENT_SETTINGS.searchRawScope,
        },
      });
      items = (res.hits as RawHit[]).map((h) => ({ ref: h.ref, text: rawText(h) }));
      opened = res;
    }
    batches.push(openedBatch(opened.batchId, step.tool, step.query, opened.evidenceRefs));
    views.push({
      batchId: opened.batchId,
      tool: step.tool,
      query: step.query,
      items,
    });
  }

  async function assess(
    batch: BatchRecord,
    body: AssessBody,
    by: 'model' | 'harness',
  ): Promise<void> {
    const res = await client.call('assessEvidence', {
      spaceId,
      threadId,
      body: { batchId: batch.batchId, ...body },
    });
    Object.assign(batch, {
      assessedBy: by,
      requestedVerdict: String(body.verdict),
      verdict: res.verdict,
      evidenceRefs: res.evidenceRefs,
      rejectedEvidenceRefs: res.rejectedEvidenceRefs.length,
      nextStrategy: res.nextStrategy,
      fit: res.fit,
      missing: res.missing,
    });
    const view = views.find((v) => v.batchId === batch.batchId);
    if (view) {
      view.verdict = batch.verdict!;
      view.evidenceRefs = batch.evidenceRefs;
      view.missing = batch.missing;
    }
  }

  try {
    const recalled = await client.call('recall', {
      spaceId,
      threadId,
      body: { message: question },
    });
    const memory = recalled.activatedMemory as {
      events: EventView[];
      graphNodes: { name: string; type: string }[];
    };
    const recallView: RecallView = {
      events: memory.events.map((e) => ({ id: e.id, text: eventText(e) })),
      graphNodes: memory.graphNodes.map((n) => `${n.name} (${n.type})`),
    };
    for (const e of memory.events) knownEvents.add(e.id);
    recall = { events: memory.events.length, graphNodes: memory.graphNodes.length };

    const plan = await ask(
      planPrompt({ question, speakers, recall: recallView }),
      planSchema([...knownEvents]),
      PROMPT_VERSIONS.plan,
    );
    let step = {
      tool: plan.next_strategy,
      query: plan.next_strategy === 'expand_event' ? plan.event_id.trim() : plan.query.trim(),
    };
    while (rounds < input.rounds) {
      rounds++;
      await retrieve(step);
      const batch = batches.at(-1)!;
      const a = await ask(
        assessPrompt({
          question,
          speakers,
          earlier: views.slice(0, -1),
          latest: views.at(-1)!,
          retrievalsLeft: input.rounds - rounds,
        }),
        assessSchema([...knownEvents]),
        PROMPT_VERSIONS.assess,
      );
      await assess(
        batch,
        {
          verdict: a.verdict,
          evidence_refs: a.evidence_refs,
          fit: a.fit,
          missing: a.missing,
          next_strategy: a.next_strategy,
        },
        'model',
      );
      if (batch.verdict === 'sufficient') {
        confirmed = true;
        break;
      }
      // The gate's strategy (a non-sufficient "answer" became search_events).
      const next = batch.nextStrategy;
      if (next === 'expand_event' && knownEvents.has(a.event_id.trim())) {
        step = { tool: 'expand_event', query: a.event_id.trim() };
      } else {
        step = {
          tool: next === 'search_raw' ? 'search_raw' : 'search_events',
          query: a.query.trim() || question,
        };
      }
    }

    const drafted = await ask(
      answerPrompt({ question, speakers, batches: views, confirmed }),
      AnswerSchema,
      PROMPT_VERSIONS.answer,
    );
    usedRefs = drafted.used_refs.map((r) => r.trim());
    answer = confirmed ? drafted.answer : `${UNCERTAIN_PREFIX}${drafted.answer}`;
  } catch (e) {
    if (!isModelFailure(e)) throw e;
    error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    answer = '';
    usedRefs = [];
  }

  // MM-GATE-10: every batch of the turn is assessed and closed before the answer is final. A
  // batch the model could not assess (it failed) is assessed by the harness as partial.
  const open = await client.call('listEvidenceBatches', {
    spaceId,
    threadId,
    status: 'unresolved',
  });
  for (const b of open.batches) {
    if (!batches.some((x) => x.batchId === b.batchId)) {
      // Opened by a call whose reply never arrived (the run stops on such errors; kept for safety).
      batches.push(openedBatch(b.batchId, 'search_events', '', b.evidenceRefs));
    }
  }
  for (const batch of batches) {
    if (batch.assessedBy === null) {
      await assess(
        batch,
        {
          verdict: 'partial',
          evidence_refs: [],
          missing: `not assessed: ${error ?? 'the agent stopped'}`,
          next_strategy: 'search_events',
        },
        'harness',
      );
    }
    // Only refs the answer used, and only those the gate accepted as sufficient (MM-GATE-7/8).
    const refs =
      batch.verdict === 'sufficient' ? batch.evidenceRefs.filter((r) => usedRefs.includes(r)) : [];
    const receiptId = `${threadId}:adopt:${batch.batchId}`;
    const res = await client.call('adoptEvidence', {
      spaceId,
      threadId,
      body: { batchId: batch.batchId, receiptId, evidence_refs: refs },
    });
    batch.receiptId = receiptId;
    batch.adoptedRefs = res.evidenceRefs;
    batch.incremented = res.incremented;
    batch.eventIds = res.eventIds;
  }
  const after = await client.call('listEvidenceBatches', {
    spaceId,
    threadId,
    status: 'unresolved',
  });
  const unresolvedAfter = after.batches.map((b) => b.batchId);
  if (unresolvedAfter.length > 0) {
    throw new Error(`${threadId}: batches still unresolved before the answer: ${unresolvedAfter}`);
  }
  return {
    threadId,
    answer,
    uncertain: error === null && !confirmed,
    budgetExhausted: error === null && !confirmed && rounds >= input.rounds,
    rounds,
    recall,
    usedRefs,
    batches,
    unresolvedAfter,
    tokens,
    ms: round1(performance.now() - started),
    error,
  };
}

export interface JudgeOutcome {
  verdict: 'CORRECT' | 'WRONG';
  reason: string;
  tokens: TokenCount;
  ms: number;
  /** The judge failed (counted WRONG), or was not asked because the agent failed. */
  error: string | null;
}

export async function judgeAnswer(input: {
  chat: JsonChat;
  category: number;
  question: string;
  gold: string | null;
  adversarialAnswer: string | null;
  answer: string;
}): Promise<JudgeOutcome> {
  const started = performance.now();
  const tokens = noTokens();
  try {
    const result = await input.chat.complete(judgePrompt(input), JudgeSchema, {
      name: PROMPT_VERSIONS.judge,
      temperature: 0,
    });
    addTokens(tokens, tokensOf(result));
    return { ...result.value, tokens, ms: round1(performance.now() - started), error: null };
  } catch (e) {
    if (!isModelFailure(e)) throw e;
    if (e instanceof JsonChatOutputError) {
      addTokens(tokens, tokensOf(e.cost));
    }
    const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return {
      verdict: 'WRONG',
      reason: 'judge failed',
      tokens,
      ms: round1(performance.now() - started),
      error,
    };
  }
}
