import type { BlockSummaryInput, SummaryMessage } from '../model-port.ts';
import { isBlank } from '../text.ts';
import { summarizeToolResult } from '@stratagate/domain';
import { detectSignals, type Signal } from './signals.ts';
import { splitSentences } from './sentences.ts';
import { BOILERPLATE, FILLER_WORDS } from './stop-words.ts';
import { extractTerms, type TermHit } from './terms.ts';
import { countHan, segmentWords } from './words.ts';

export type Role = SummaryMessage['role'];

export interface Sentence {
  text: string;
  order: number;
  messageIndex: number;
  role: Role;
  speaker: string | undefined;
  terms: TermHit[];
  keys: Set<string>;
  signals: Signal[];
  question: boolean;
  hanChars: number;
}

export interface ToolPoint {
  text: string;
  order: number;
  messageIndex: number;
  failed: boolean;
}

/** Everything the title, tags, summary and key points are chosen from; built in one pass. */
export interface BlockAnalysis {
  /** User and assistant sentences that say something (no fillers, greetings or courtesy). */
  content: Sentence[];
  toolPoints: ToolPoint[];
  /** Speaker names, tool names and roles in first-seen order, for padding tags. */
  speakerNames: string[];
  toolNames: string[];
  roles: Role[];
  /** Prefix sentences with the speaker only when there are several and some have names. */
  labelSpeakers: boolean;
  /**
   * Last-resort title and summary: the first sentence, preferring user text, else a tool
   * outcome; '' only for a block with no text at all.
   */
  fallback: string;
}

const QUESTION = /[?？]["'”’)）]*$/u;
const TOOL_POINT_CHARS = 100;

export function analyseBlock(input: BlockSummaryInput): BlockAnalysis {
  const content: Sentence[] = [];
  const toolPoints: ToolPoint[] = [];
  const speakerNames: string[] = [];
  const toolNames: string[] = [];
  const roles: Role[] = [];
  const labels = new Set<string>();
  let order = 0;

  const names = new Set(
    input.messages.map((m) => m.name?.trim().toLowerCase() ?? '').filter((n) => n !== ''),
  );
  input.messages.forEach((message, messageIndex) => {
    const speaker = message.name?.trim() || undefined;
    addOnce(roles, message.role);
    if (speaker && message.role !== 'tool') addOnce(speakerNames, speaker);
    if (message.role === 'user' || message.role === 'assistant') {
      labels.add(speaker ?? message.role);
      for (const text of splitSentences(message.content)) {
        const sentence = analyseSentence(text, order, messageIndex, message.role, speaker, names);
        order += 1;
        if (sentence) content.push(sentence);
      }
    }
    if (message.role === 'tool' && !isBlank(message.content)) {
      const point = toolPoint(speaker ?? 'result', message.content, order, messageIndex);
      if (point) toolPoints.push(point);
      order += 1;
    }
    for (const call of message.toolCalls ?? []) {
      const name = call.name.trim() || 'tool';
      addOnce(toolNames, name);
      if (call.result === undefined) continue;
      const point = toolPoint(name, call.result, order, messageIndex);
      if (point) toolPoints.push(point);
      order += 1;
    }
  });

  return {
    content,
    toolPoints,
    speakerNames,
    toolNames,
    roles,
    labelSpeakers: labels.size > 1 && speakerNames.length > 0,
    fallback: fallbackText(input.messages, toolPoints),
  };
}

function analyseSentence(
  text: string,
  order: number,
  messageIndex: number,
  role: Role,
  speaker: string | undefined,
  names: ReadonlySet<string>,
): Sentence | null {
  const segments = segmentWords(text);
  const words = segments.filter((s) => s.wordLike).map((s) => s.text.toLowerCase());
  // Filler: nothing but chit-chat words and the names of the people chatting ("Hi Mel!").
  if (words.every((w) => FILLER_WORDS.has(w) || names.has(w))) return null;
  if (BOILERPLATE.test(text)) return null;
  const terms = extractTerms(segments);
  return {
    text,
    order,
    messageIndex,
    role,
    speaker,
    terms,
    keys: new Set(terms.map((t) => t.key)),
    signals: detectSignals(text),
    question: QUESTION.test(text),
    hanChars: countHan(text),
  };
}

function toolPoint(name: string, result: unknown, order: number, messageIndex: number) {
  const summary = summarizeToolResult(result).replace(/\s+/gu, ' ').trim();
  if (summary === '') return null;
  const short = Array.from(summary).slice(0, TOOL_POINT_CHARS).join('').trimEnd();
  return {
    text: `Tool ${name}: ${short}`,
    order,
    messageIndex,
    failed: summary.startsWith('failed:'),
  };
}

/** Prefer any sentence a person wrote, then a tool outcome, then whatever raw text exists. */
function fallbackText(
  messages: readonly SummaryMessage[],
  toolPoints: readonly ToolPoint[],
): string {
  const byPreference = [
    ...messages.filter((m) => m.role === 'user'),
    ...messages.filter((m) => m.role === 'assistant' || m.role === 'system'),
  ];
  for (const m of byPreference) {
    const first = splitSentences(m.content)[0];
    if (first !== undefined) return first;
  }
  const tool = toolPoints[0]?.text;
  if (tool !== undefined) return tool;
  return messages.find((m) => !isBlank(m.content))?.content.trim() ?? '';
}

function addOnce<T>(list: T[], item: T): void {
  if (!list.includes(item)) list.push(item);
}
