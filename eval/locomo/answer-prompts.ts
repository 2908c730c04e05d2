/**
 * Prompts and output schemas of the LoCoMo answer mode: the agent's first retrieval (plan), the
 * evidence-gate assessment of each batch, the final answer, and the judge. Each system message
 * starts with its version, which the report records; any wording or schema change that could
 * change answers needs a new version. Nothing here is tuned to the data set.
 */
import { z } from 'zod';
import type { ChatMessage } from '@stratagate/model';

export const PROMPT_VERSIONS = {
  plan: 'locomo-agent-plan@1',
  assess: 'locomo-agent-assess@1',
  answer: 'locomo-agent-answer@1',
  judge: 'locomo-judge@1',
} as const;

/** The retrievals the agent may call; each opens an evidence batch (MM-GATE-2). */
export const AGENT_TOOLS = ['search_events', 'search_raw', 'expand_event'] as const;
export type AgentTool = (typeof AGENT_TOOLS)[number];

/** Prepended by the harness when the round budget ends without a sufficient verdict. */
export const UNCERTAIN_PREFIX =
  'Unconfirmed: the memory search ended without sufficient evidence. ';

export interface EvidenceItem {
  ref: string;
  /** One or more lines as the model sees them. */
  text: string;
}

export interface AssessedBatch {
  batchId: string;
  tool: AgentTool;
  /** The search query, or the event id for expand_event. */
  query: string;
  items: EvidenceItem[];
  /** The gate's normalised result (MM-GATE-5), once assessed. */
  verdict?: string;
  evidenceRefs?: string[];
  missing?: string;
}

export interface RecallView {
  events: { id: string; text: string }[];
  graphNodes: string[];
}

const cut = (max: number) => (text: string) => Array.from(text).slice(0, max).join('');

/** A retrieval the harness can execute: a query for a search, a shown event id to expand. */
function executableStep(knownEventIds: readonly string[]) {
  const known = new Set(knownEventIds);
  return (
    value: { next_strategy: string; query: string; event_id: string },
    ctx: z.core.$RefinementCtx,
  ) => {
    if (value.next_strategy.startsWith('search_') && value.query.trim() === '') {
      ctx.addIssue({
        code: 'custom',
        path: ['query'],
        message: `${value.next_strategy} needs a query`,
      });
    }
    if (value.next_strategy === 'expand_event' && !known.has(value.event_id.trim())) {
      ctx.addIssue({
        code: 'custom',
        path: ['event_id'],
        message:
          known.size === 0
            ? 'no event id has been shown yet; use a search instead'
            : `event_id must be one of the event ids shown: ${[...known].join(', ')}`,
      });
    }
  };
}

const Query = z.string().max(500).default('');
const EventId = z.string().max(200).default('');

export function planSchema(knownEventIds: readonly string[]) {
  return z
    .object({ next_strategy: z.enum(AGENT_TOOLS), query: Query, event_id: EventId })
    .superRefine(executableStep(knownEventIds));
}
export type PlanOutput = z.output<ReturnType<typeof planSchema>>;

/** MM-GATE-3 fields as the model writes them, plus the next retrieval when not sufficient. */
export function assessSchema(knownEventIds: readonly string[]) {
  return z
    .object({
      verdict: z.enum(['sufficient', 'partial', 'wrong']),
      evidence_refs: z.array(z.string()).max(8).default([]),
      fit: z.string().default('').transform(cut(160)),
      missing: z.string().default('').transform(cut(160)),
      next_strategy: z.enum(['answer', ...AGENT_TOOLS]),
      query: Query,
      event_id: EventId,
    })
    .superRefine(executableStep(knownEventIds));
}
export type AssessOutput = z.output<ReturnType<typeof assessSchema>>;

export const AnswerSchema = z.object({
  answer: z.string().trim().min(1).max(1000),
  used_refs: z.array(z.string()).max(16).default([]),
});
export type AnswerOutput = z.output<typeof AnswerSchema>;

export const JudgeSchema = z.object({
  verdict: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
    z.enum(['CORRECT', 'WRONG']),
  ),
  reason: z.string().default('').transform(cut(200)),
});
export type JudgeOutput = z.output<typeof JudgeSchema>;

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** "Tue 2023-06-27 10:40 UTC": the weekday helps resolve "last Friday". */
export function when(iso: unknown): string {
  if (typeof iso !== 'string') return 'time unknown';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${WEEKDAYS[d.getUTCDay()]} ${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function speakersLine(speakers: readonly [string, string]): string {
  return `a long past conversation between ${speakers[0]} and ${speakers[1]} (several sessions over months)`;
}

const TOOLS_TEXT = [
  'Tools (each call opens an evidence batch that is then assessed):',
  '- search_events(query): memory events extracted from the conversation (who did or said what, and when). Keyword (BM25) search: use distinctive words such as names, objects, places and activities, not a whole sentence.',
  '- search_raw(query): the original messages of the conversation, keyword (BM25) search; each hit comes with its neighbouring messages.',
  '- expand_event(event_id): the full record of one event whose id was shown.',
].join('\n');

function recallText(recall: RecallView): string {
  const events = recall.events.length
    ? recall.events.map((e) => `- event_id ${e.id}: ${e.text}`).join('\n')
    : '(none)';
  const nodes = recall.graphNodes.length ? recall.graphNodes.join(', ') : '(none)';
  return `Activated memory (found automatically; background, not verified):\n${events}\nKnown entities: ${nodes}`;
}

function itemsText(items: readonly EvidenceItem[]): string {
  return items.length ? items.map((i) => `[${i.ref}] ${i.text}`).join('\n') : '(no results)';
}

function batchHeader(b: AssessedBatch): string {
  return `${b.batchId}: ${b.tool}(${JSON.stringify(b.query)})`;
}

export function planPrompt(input: {
  question: string;
  speakers: readonly [string, string];
  recall: RecallView;
}): ChatMessage[] {
  return [
    {
      role: 'system',
      content: [
        PROMPT_VERSIONS.plan,
        `You answer a question about ${speakersLine(input.speakers)} using a memory system. You cannot see the conversation, only what the memory's tools return.`,
        TOOLS_TEXT,
        'Choose the first retrieval.',
        'Reply with one JSON object: {"next_strategy": "search_events" | "search_raw" | "expand_event", "query": "<keywords, for a search>", "event_id": "<id, for expand_event>"}',
      ].join('\n\n'),
    },
    {
      role: 'user',
      content: `Question: ${input.question}\n\n${recallText(input.recall)}`,
    },
  ];
}

export function assessPrompt(input: {
  question: string;
  speakers: readonly [string, string];
  earlier: readonly AssessedBatch[];
  latest: AssessedBatch;
  retrievalsLeft: number;
}): ChatMessage[] {
  const earlier = input.earlier.length
    ? input.earlier
        .map((b) => {
          const accepted = b.items.filter((i) => b.evidenceRefs?.includes(i.ref));
          return [
            `${batchHeader(b)} → ${b.verdict ?? 'not assessed'}; missing: ${b.missing || '-'}`,
            ...accepted.map((i) => `  [${i.ref}] ${i.text}`),
          ].join('\n');
        })
        .join('\n')
    : '(none)';
  const budget =
    input.retrievalsLeft > 0
      ? `Retrievals left after this one: ${input.retrievalsLeft}. If the evidence is not sufficient, choose the next retrieval: next_strategy search_events or search_raw with a new keyword query (different from the earlier ones), or expand_event with an event_id that was shown.`
      : 'No retrievals are left: if the evidence is not sufficient, the answer will say what could not be confirmed (set next_strategy to search_events).';
  return [
    {
      role: 'system',
      content: [
        PROMPT_VERSIONS.assess,
        `You are the evidence gate of a memory agent answering a question about ${speakersLine(input.speakers)}. Judge the results of the latest retrieval batch. Relevant is not sufficient.`,
        [
          '- verdict "sufficient": the latest results, with the earlier accepted evidence shown, directly answer the question. List in evidence_refs (at most 8) the refs of the LATEST batch that support the answer, and set next_strategy to "answer".',
          '- verdict "partial": related, but something the answer needs is still missing. verdict "wrong": beside the question.',
          '- Never fill gaps with general knowledge or guesses.',
          '- fit: where the evidence meets the question (at most 160 characters). missing: what is still lacking (at most 160 characters; empty when sufficient).',
          `- ${budget}`,
        ].join('\n'),
        TOOLS_TEXT,
        'Reply with one JSON object: {"verdict": "sufficient" | "partial" | "wrong", "evidence_refs": ["<ref>"], "fit": "...", "missing": "...", "next_strategy": "answer" | "search_events" | "search_raw" | "expand_event", "query": "<keywords, for a search>", "event_id": "<id, for expand_event>"}',
      ].join('\n\n'),
    },
    {
      role: 'user',
      content: [
        `Question: ${input.question}`,
        `Earlier batches:\n${earlier}`,
        `Latest batch ${batchHeader(input.latest)}:\n${itemsText(input.latest.items)}`,
      ].join('\n\n'),
    },
  ];
}

export function answerPrompt(input: {
  question: string;
  speakers: readonly [string, string];
  batches: readonly AssessedBatch[];
  confirmed: boolean;
}): ChatMessage[] {
  const evidence = input.batches.length
    ? input.batches
        .map((b) => {
          const lines = b.items.map(
            (i) => `[${i.ref}]${b.evidenceRefs?.includes(i.ref) ? ' (accepted)' : ''} ${i.text}`,
          );
          return `${batchHeader(b)} → ${b.verdict ?? 'not assessed'}\n${lines.join('\n') || '(no results)'}`;
        })
        .join('\n\n')
    : '(none)';
  const state = input.confirmed
    ? 'The evidence gate judged the evidence sufficient.'
    : 'The retrieval budget ended WITHOUT sufficient evidence. Say plainly what could not be confirmed. You may add what the partial evidence suggests, marked as unconfirmed. If the question assumes something the evidence does not show, say so.';
  return [
    {
      role: 'system',
      content: [
        PROMPT_VERSIONS.answer,
        `Write the final answer to a question about ${speakersLine(input.speakers)}, from the evidence below only.`,
        [
          '- Answer briefly: a few words, a name, a date or one short sentence.',
          '- Times on the evidence are when each message was said; resolve relative expressions ("last week", "yesterday") against them and give absolute dates.',
          '- Do not use general knowledge to fill gaps.',
          `- ${state}`,
          '- used_refs: the refs of the evidence your answer actually relies on (empty when it relies on none).',
        ].join('\n'),
        'Reply with one JSON object: {"answer": "...", "used_refs": ["<ref>"]}',
      ].join('\n\n'),
    },
    { role: 'user', content: `Question: ${input.question}\n\nEvidence:\n${evidence}` },
  ];
}

export function judgePrompt(input: {
  category: number;
  question: string;
  gold: string | null;
  adversarialAnswer: string | null;
  answer: string;
}): ChatMessage[] {
  const adversarial = input.category === 5;
  const lines = [
    `Question${adversarial ? ' (adversarial)' : ''}: ${input.question}`,
    `Gold answer: ${input.gold ?? '(not in the conversation: the question rests on a false premise)'}`,
    ...(input.adversarialAnswer !== null
      ? [`Tempting wrong answer: ${input.adversarialAnswer}`]
      : []),
    `Answer to grade: ${input.answer}`,
  ];
  return [
    {
      role: 'system',
      content: [
        PROMPT_VERSIONS.judge,
        'You grade an answer that a memory system gave to a question about a long conversation, against the gold answer.',
        [
          '- CORRECT if the answer conveys the key facts of the gold answer. Other wording, extra detail and another date format are fine; for time questions, the same date or period as the gold.',
          '- WRONG if it contradicts the gold, misses its key fact, stays vague, or says it cannot tell.',
          '- An answer marked unconfirmed is graded on its content like any other.',
          '- An adversarial question rests on a premise the conversation does not support. If the gold answer says it is not in the conversation: CORRECT if the answer says the information is not available or rejects the premise; WRONG if it asserts the tempting wrong answer or any other definite answer.',
        ].join('\n'),
        'Reply with one JSON object: {"verdict": "CORRECT" | "WRONG", "reason": "<one short sentence>"}',
      ].join('\n\n'),
    },
    { role: 'user', content: lines.join('\n') },
  ];
}
