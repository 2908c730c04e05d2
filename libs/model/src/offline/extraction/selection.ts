import type { EventType } from '../../extraction.schema.ts';
import { SINGLE_VALUED, type Claim } from '../nlp/claims.ts';
import {
  FIRST_PERSON,
  STRONG_TYPES,
  eventTypeOf,
  isIdentity,
  isLastingGuidance,
  isPreference,
  isSafety,
  isSessionRequest,
} from './cues.ts';
import type { SentenceView } from './sentence-view.ts';
import { detectTense, type Tense } from './tense.ts';

/**
 * Which sentences become events (MM-EVT-11): the bar is low for what people say about
 * themselves and their work, and high for an agent narrating its own routine steps.
 */
export interface SentenceFeatures {
  eventType: EventType;
  tense: Tense;
  firstPerson: boolean;
  request: boolean;
  /** Preference, identity or safety: stable facts worth keeping even without an action. */
  personalFact: boolean;
  /** What the sentence states about someone or something (diet, role, owner, dates…). */
  claims: readonly Claim[];
  /** Content terms other than the chatters' own names. */
  content: number;
  score: number;
}

/** An agent (or anyone) reporting that it looked at or ran something. */
const ROUTINE_STEP = new RegExp(
  [
    String.raw`\b(?:let me|let's|i'll|i will|now i'll|i'm going to)\s+(?:now\s+)?(?:check|look|read|open|run|re-?run|inspect|search|grep|list|view|scan|see|try|take a look)\b`,
    String.raw`\b(?:ran|run|re-?ran|re-?run|running|re-?running|executed|executing|read|reading|opened|opening|checked|checking|looked at|looking at|inspected|inspecting|searched|searching|listed|listing|viewed|viewing|scanned|grepped|grepping|fetched|fetching|loaded|loading)\b[^.!?]*?(?:\b(?:tests?|test suite|specs?|files?|logs?|code|directory|folder|repo|output|command|script|linter|lint|config)\b|[\w-]+\.(?:ts|tsx|js|mjs|cjs|json|md|py|ya?ml|txt|toml|lock|sh|css|html)\b|\bsrc/|\./)`,
    '(?:我)?(?:再)?(?:运行|跑|执行|查看|打开|读取|看了?一下|检查)(?:了)?(?:一下)?(?:测试|文件|日志|代码|目录|配置)',
  ].join('|'),
  'iu',
);

/** What makes a routine step worth keeping after all: its outcome (MM-EVT-11 "important results"). */
const OUTCOME =
  /\b(fail(?:ed|s|ing|ure)?|pass(?:ed|es|ing)?|fixed|broke|broken|errors?|root cause|because|found that|turns out|succeeded|crash\w*|timeouts?|regression|flaky)\b|失败|通过|报错|原因|修复|发现/iu;

export function describeSentence(
  sentence: SentenceView,
  names: ReadonlySet<string>,
  fromUser: boolean,
  claims: readonly Claim[] = [],
): SentenceFeatures {
  const text = sentence.text.replace(/[’‘]/gu, "'");
  const eventType = claimType(eventTypeOf(text), claims);
  const request = fromUser && (isSessionRequest(text) || isLastingGuidance(text));
  const personalFact = isPreference(text) || isIdentity(text) || isSafety(text);
  const content = sentence.terms.filter((t) => !names.has(t.key)).length;
  const tense = detectTense(text);
  const score =
    (STRONG_TYPES.has(eventType) ? 3 : eventType === 'other' ? 0 : 2) +
    (personalFact ? 3 : 0) +
    (request ? 2 : 0) +
    (claims.length > 0 ? 2 : 0) +
    (tense === 'none' ? 0 : 1) +
    Math.min(content, 4) * 0.25;
  return {
    eventType,
    tense,
    firstPerson: FIRST_PERSON.test(text),
    request,
    personalFact,
    claims,
    content,
    score,
  };
}

/**
 * A statement that replaces a value ("I'm pescatarian now", "we moved the deadline to …") is
 * a change; a hand-over is a collaboration; otherwise the cue words' type stands.
 */
function claimType(type: EventType, claims: readonly Claim[]): EventType {
  if (type !== 'other' && type !== 'plan') return type;
  if (claims.some((c) => c.change && (SINGLE_VALUED.has(c.attribute) || c.attribute === 'tool'))) {
    return 'change';
  }
  if (claims.some((c) => c.attribute === 'covers_for' || c.attribute === 'owner')) {
    return 'collaboration';
  }
  return type;
}

/**
 * `agent` is a generic assistant: its first-person statements are steps, so only strong
 * outcomes (decisions, changes, releases, incidents, completions) from it count.
 */
export function isEventWorthy(
  sentence: SentenceView,
  f: SentenceFeatures,
  agent: boolean,
  mentionsOthers: boolean,
  person = false,
): boolean {
  // Han text carries content in fewer "terms"; a few content characters are enough.
  const substantive = f.content >= 2 || (f.content >= 1 && sentence.hanChars >= 4);
  // A question asks rather than states, unless it is a request put politely ("Could you
  // keep this short?"): the request pattern only matches imperatives, never wh-questions.
  if (sentence.question) return f.request && !agent && f.content >= 2;
  if (ROUTINE_STEP.test(sentence.text) && !OUTCOME.test(sentence.text)) return false;
  if (f.content < 1) return false;
  // An agent's general explanation ("the scheduler can decide…") is no happening: it must
  // report something that happened or will (a tense), not describe how things work.
  if (agent) return STRONG_TYPES.has(f.eventType) && substantive && f.tense !== 'none';
  if (f.request) return f.content >= 1;
  // A stated fact about a person or thing (diet, role, owner, a plan's date) is kept.
  if (f.claims.length > 0) return true;
  // A named person telling about their life: the bar for user facts is low (MM-EVT-11).
  if (person && substantive) return true;
  if (STRONG_TYPES.has(f.eventType)) return true;
  if (f.personalFact && (f.firstPerson || mentionsOthers)) return true;
  if (f.firstPerson && substantive && (f.tense !== 'none' || f.eventType !== 'other')) return true;
  return mentionsOthers && substantive && (f.tense === 'past' || f.tense === 'future');
}

/** "It was so powerful." right after the event it describes: part of it, not a new event. */
export const CONTINUATION =
  /^(?:it|that|this|they|he|she|which|there|它|这|那|他|她)(?:\b|'|’|\s|[^\p{L}])/iu;

export function continuesPrevious(sentence: SentenceView): boolean {
  return !sentence.question && CONTINUATION.test(sentence.text) && sentence.terms.length >= 1;
}
