/** Aggregation and the markdown table of the LoCoMo answer mode (pure functions). */
import {
  addTokens,
  noTokens,
  type AgentOutcome,
  type JudgeOutcome,
  type TokenCount,
} from './answer-agent.ts';

export const ANSWER_CATEGORIES = [1, 2, 3, 4, 5] as const;
const CATEGORY_NAMES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

export interface AnswerRecord extends AgentOutcome {
  sampleId: string;
  category: number;
  question: string;
  /** The qa `answer`; null for adversarial questions that have none. */
  gold: string | null;
  adversarialAnswer: string | null;
  /** 1-based. */
  repeat: number;
  judge: JudgeOutcome;
}

export interface AccuracyStat {
  /** Questions per repeat. */
  n: number;
  /** Share judged CORRECT in each repeat; null when n = 0. */
  perRepeat: (number | null)[];
  /** Over repeats; null when n = 0. */
  mean: number | null;
  /** Sample standard deviation over repeats (0 with a single repeat). */
  sd: number | null;
  min: number | null;
  max: number | null;
}

export interface Distribution {
  n: number;
  median: number | null;
  /** Nearest rank: the ⌈0.95·n⌉-th smallest. */
  p95: number | null;
  mean: number | null;
}

export interface ReinforcementCheck {
  sampleId: string;
  /** Adoptions that named each event (from the adopt responses). */
  expected: Record<string, number>;
  /** mentionCount after − before, for every event whose count changed or was expected to. */
  observed: Record<string, number>;
  ok: boolean;
}

export interface AnswerSummary {
  counts: {
    questions: number;
    answers: number;
    agentErrors: number;
    judgeErrors: number;
    uncertain: number;
    budgetExhausted: number;
  };
  accuracy: {
    byCategory: Record<string, AccuracyStat>;
    'cat1-4': AccuracyStat;
    'cat1-5': AccuracyStat;
  };
  tokens: {
    agent: TokenCount;
    judge: TokenCount;
    /** Means per answer (per question and repeat). */
    perAnswer: {
      agentPrompt: number;
      agentCompletion: number;
      judgePrompt: number;
      judgeCompletion: number;
    };
  };
  latencyMs: { answer: Distribution; judge: Distribution };
  gate: {
    batches: number;
    assessedByModel: number;
    assessedByHarness: number;
    verdicts: Record<string, number>;
    rejectedEvidenceRefs: number;
    adoptions: number;
    nonEmptyAdoptions: number;
    adoptedRefs: number;
    eventReinforcements: number;
    unresolvedBeforeAnswer: number;
    rounds: Distribution;
    reinforcementCheck: 'ok' | 'mismatch' | 'not run';
  };
}

const mean = (xs: readonly number[]) =>
  xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null;

export function sampleSd(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  if (xs.length === 1) return 0;
  const m = mean(xs)!;
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}

export function distribution(xs: readonly number[]): Distribution {
  if (xs.length === 0) return { n: 0, median: null, p95: null, mean: null };
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  const p95 = s[Math.max(0, Math.ceil(0.95 * s.length) - 1)]!;
  return { n: s.length, median, p95, mean: mean(s) };
}

function accuracy(records: readonly AnswerRecord[], repeats: number): AccuracyStat {
  const perRepeat: (number | null)[] = [];
  let n = 0;
  for (let r = 1; r <= repeats; r++) {
    const mine = records.filter((x) => x.repeat === r);
    n = Math.max(n, mine.length);
    perRepeat.push(
      mine.length ? mine.filter((x) => x.judge.verdict === 'CORRECT').length / mine.length : null,
    );
  }
  const values = perRepeat.filter((x): x is number => x !== null);
  return {
    n,
    perRepeat,
    mean: mean(values),
    sd: sampleSd(values),
    min: values.length ? Math.min(...values) : null,
    max: values.length ? Math.max(...values) : null,
  };
}

export function summarise(
  records: readonly AnswerRecord[],
  repeats: number,
  checks: readonly ReinforcementCheck[],
): AnswerSummary {
  const byCategory: Record<string, AccuracyStat> = {};
  for (const c of ANSWER_CATEGORIES) {
    byCategory[String(c)] = accuracy(
      records.filter((r) => r.category === c),
      repeats,
    );
  }
  const agent = noTokens();
  const judge = noTokens();
  for (const r of records) {
    addTokens(agent, r.tokens);
    addTokens(judge, r.judge.tokens);
  }
  const per = (x: number) => (records.length ? x / records.length : 0);
  const batches = records.flatMap((r) => r.batches);
  const verdicts: Record<string, number> = {};
  for (const b of batches) {
    const v = b.verdict ?? 'none';
    verdicts[v] = (verdicts[v] ?? 0) + 1;
  }
  return {
    counts: {
      questions: records.filter((r) => r.repeat === 1).length,
      answers: records.length,
      agentErrors: records.filter((r) => r.error !== null).length,
      judgeErrors: records.filter((r) => r.error === null && r.judge.error !== null).length,
      uncertain: records.filter((r) => r.uncertain).length,
      budgetExhausted: records.filter((r) => r.budgetExhausted).length,
    },
    accuracy: {
      byCategory,
      'cat1-4': accuracy(
        records.filter((r) => r.category >= 1 && r.category <= 4),
        repeats,
      ),
      'cat1-5': accuracy(records, repeats),
    },
    tokens: {
      agent,
      judge,
      perAnswer: {
        agentPrompt: per(agent.prompt),
        agentCompletion: per(agent.completion),
        judgePrompt: per(judge.prompt),
        judgeCompletion: per(judge.completion),
      },
    },
    latencyMs: {
      answer: distribution(records.map((r) => r.ms)),
      judge: distribution(records.filter((r) => r.error === null).map((r) => r.judge.ms)),
    },
    gate: {
      batches: batches.length,
      assessedByModel: batches.filter((b) => b.assessedBy === 'model').length,
      assessedByHarness: batches.filter((b) => b.assessedBy === 'harness').length,
      verdicts,
      rejectedEvidenceRefs: batches.reduce((s, b) => s + b.rejectedEvidenceRefs, 0),
      adoptions: batches.filter((b) => b.receiptId !== null).length,
      nonEmptyAdoptions: batches.filter((b) => b.adoptedRefs.length > 0).length,
      adoptedRefs: batches.reduce((s, b) => s + b.adoptedRefs.length, 0),
      eventReinforcements: batches.reduce((s, b) => s + b.incremented, 0),
      unresolvedBeforeAnswer: records.reduce((s, r) => s + r.unresolvedAfter.length, 0),
      rounds: distribution(records.filter((r) => r.error === null).map((r) => r.rounds)),
      reinforcementCheck:
        checks.length === 0 ? 'not run' : checks.every((c) => c.ok) ? 'ok' : 'mismatch',
    },
  };
}

const pct = (x: number | null) => (x === null ? 'n/a' : (x * 100).toFixed(1));
const num = (x: number | null, digits = 0) => (x === null ? 'n/a' : x.toFixed(digits));
const int = (x: number) => Math.round(x).toLocaleString('en-US');

export function answerMarkdown(input: {
  dataset: string;
  backend: string;
  agentModel: string;
  judgeModel: string;
  rounds: number;
  repeats: number;
  seconds: number;
  summary: AnswerSummary;
}): string {
  const { summary: s, repeats } = input;
  const rows = [
    ...ANSWER_CATEGORIES.map((c) => ({
      label: `${c} ${CATEGORY_NAMES[c]}`,
      a: s.accuracy.byCategory[String(c)]!,
    })),
    { label: '**1–4**', a: s.accuracy['cat1-4'] },
    { label: '**1–5**', a: s.accuracy['cat1-5'] },
  ];
  const repeatHeads = Array.from({ length: repeats }, (_, i) => `run ${i + 1}`);
  const g = s.gate;
  const verdicts = Object.entries(g.verdicts)
    .map(([v, n]) => `${v} ${n}`)
    .join(', ');
  return [
    `# LoCoMo answer mode: ${input.dataset}`,
    '',
    `${s.counts.questions} questions (the retrieval report's scored set) × ${repeats} runs = ${s.counts.answers} answers; ` +
      `agent \`${input.agentModel}\`, judge \`${input.judgeModel}\`; at most ${input.rounds} retrievals per question; ` +
      `${input.seconds.toFixed(1)} s on ${input.backend}.`,
    'Each run answers every question again (agent and judge); adoptions of earlier runs have reinforced their events by then.',
    `Agent errors ${s.counts.agentErrors}, judge errors ${s.counts.judgeErrors} (both counted WRONG); ` +
      `answers stating uncertainty ${s.counts.uncertain} (round budget used up: ${s.counts.budgetExhausted}).`,
    '',
    '## Accuracy (LLM judge), % CORRECT, mean ± sd over runs',
    '',
    `| | n | mean | ± sd | min | max | ${repeatHeads.join(' | ')} |`,
    `| --- | ---: | ---: | ---: | ---: | ---: | ${repeatHeads.map(() => '---:').join(' | ')} |`,
    ...rows.map(
      ({ label, a }) =>
        `| ${label} | ${a.n} | ${pct(a.mean)} | ${pct(a.sd)} | ${pct(a.min)} | ${pct(a.max)} | ${a.perRepeat.map(pct).join(' | ')} |`,
    ),
    '',
    '## Tokens and latency',
    '',
    '| | prompt tokens | completion tokens | model calls | calls without usage | prompt / answer | completion / answer | median ms | p95 ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| agent (recall → batches closed) | ${int(s.tokens.agent.prompt)} | ${int(s.tokens.agent.completion)} | ${s.tokens.agent.calls} | ${s.tokens.agent.callsWithoutUsage} | ${int(s.tokens.perAnswer.agentPrompt)} | ${int(s.tokens.perAnswer.agentCompletion)} | ${num(s.latencyMs.answer.median)} | ${num(s.latencyMs.answer.p95)} |`,
    `| judge | ${int(s.tokens.judge.prompt)} | ${int(s.tokens.judge.completion)} | ${s.tokens.judge.calls} | ${s.tokens.judge.callsWithoutUsage} | ${int(s.tokens.perAnswer.judgePrompt)} | ${int(s.tokens.perAnswer.judgeCompletion)} | ${num(s.latencyMs.judge.median)} | ${num(s.latencyMs.judge.p95)} |`,
    '',
    '## Evidence gate',
    '',
    `${g.batches} batches opened (${g.assessedByModel} assessed by the model, ${g.assessedByHarness} by the harness after an error); ` +
      `gate verdicts: ${verdicts || 'none'}; ${g.rejectedEvidenceRefs} refs rejected by the gate. ` +
      `Retrievals per answer: median ${num(g.rounds.median)}, mean ${num(g.rounds.mean, 2)}, p95 ${num(g.rounds.p95)}.`,
    `${g.adoptions} adoptions (${g.nonEmptyAdoptions} with refs, ${g.adoptedRefs} refs), ${g.eventReinforcements} event reinforcements; ` +
      `mention counts match the adoptions: ${g.reinforcementCheck}; unresolved batches at answer time: ${g.unresolvedBeforeAnswer}.`,
    '',
  ].join('\n');
}
