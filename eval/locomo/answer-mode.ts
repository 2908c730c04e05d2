/**
 * LoCoMo answer mode (`npm run eval:locomo -- --data <file> --answer [--repeats 3] [--rounds 4]
 * [--judge-model <name>] [--limit-questions N]`): after a sample's retrieval questions, every
 * scored question is answered by a model-driven agent through the evidence gate of the node the
 * eval started (answer-agent.ts), then graded CORRECT/WRONG by an LLM judge against the gold
 * answer. All of it is repeated `repeats` times; the report gives accuracy per category as mean ±
 * sd over the runs, tokens, latency, the gate's bookkeeping, and a check that memory-event
 * mention counts grew by exactly the adopted events.
 */
import { performance } from 'node:perf_hooks';
import type { OperationOutput } from '@stratagate/client';
import { loadModelConfigFromEnv, MODEL_ENV, type OpenAiCompatibleConfig } from '@stratagate/model';
import { createJsonChat } from '@stratagate/model';
import type { TestNode } from '../../test/harness.ts';
import { AGENT_SETTINGS, answerQuestion, judgeAnswer, noTokens } from './answer-agent.ts';
import { PROMPT_VERSIONS } from './answer-prompts.ts';
import {
  answerMarkdown,
  summarise,
  type AnswerRecord,
  type AnswerSummary,
  type ReinforcementCheck,
} from './answer-report.ts';
import type { LocomoQa, LocomoSample } from './dataset.ts';

export const ANSWER_DEFAULTS = { rounds: 4, repeats: 3 } as const;

export interface AnswerModeOptions {
  /** The agent's model. */
  agent: OpenAiCompatibleConfig;
  /** The judge's model; default the agent's. */
  judge?: OpenAiCompatibleConfig;
  /** Retrievals (= evidence batches) per question; default 4. */
  rounds?: number;
  /** Runs of agent + judge over all questions; default 3. */
  repeats?: number;
  /** Only the first N scored questions of each conversation. */
  limitQuestions?: number;
  /** Called per sample after its answers, before the node stops (tests look inside). */
  afterAnswer?: (ctx: {
    node: TestNode;
    spaceId: string;
    sample: LocomoSample;
    records: AnswerRecord[];
  }) => Promise<void>;
}

export interface AnswerReport {
  dataset: string;
  generatedAt: string;
  backend: string;
  settings: {
    rounds: number;
    repeats: number;
    limitQuestions: number | null;
    agentModel: string;
    judgeModel: string;
    responseFormat: string;
    promptVersions: typeof PROMPT_VERSIONS;
    agent: typeof AGENT_SETTINGS;
    questions: string;
    memory: string;
  };
  seconds: number;
  summary: AnswerSummary;
  reinforcement: ReinforcementCheck[];
  answers: AnswerRecord[];
  markdown: string;
}

export class AnswerModeConfigError extends Error {
  override readonly name = 'AnswerModeConfigError';
}

/** The agent and judge models from the environment, or a clear refusal when none is configured. */
export function answerModelsFromEnv(
  env: Record<string, string | undefined>,
  judgeModel?: string,
): { agent: OpenAiCompatibleConfig; judge: OpenAiCompatibleConfig } {
  const agent = loadModelConfigFromEnv(env);
  if (!agent) {
    throw new AnswerModeConfigError(
      `--answer needs an OpenAI-compatible model: set ${MODEL_ENV.baseUrl} (e.g. https://api.openai.com/v1) ` +
        `and ${MODEL_ENV.model}, plus ${MODEL_ENV.apiKey} if the server wants one. ` +
        'The retrieval eval alone (without --answer) needs no model.',
    );
  }
  const judge = judgeModel?.trim();
  return { agent, judge: judge ? { ...agent, model: judge } : agent };
}

function positive(name: string, value: number | undefined, fallback: number | null) {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new AnswerModeConfigError(`${name}: a positive integer expected, got ${value}`);
  }
  return value;
}

export function createAnswerMode(options: AnswerModeOptions, log: (line: string) => void) {
  const rounds = positive('--rounds', options.rounds, ANSWER_DEFAULTS.rounds)!;
  const repeats = positive('--repeats', options.repeats, ANSWER_DEFAULTS.repeats)!;
  const limitQuestions = positive('--limit-questions', options.limitQuestions, null);
  const agentChat = createJsonChat(options.agent);
  const judgeConfig = options.judge ?? options.agent;
  const judgeChat = createJsonChat(judgeConfig);
  const records: AnswerRecord[] = [];
  const checks: ReinforcementCheck[] = [];
  let ms = 0;

  async function mentionCounts(node: TestNode, spaceId: string): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (let offset: number | null = 0; offset !== null;) {
      const page: OperationOutput<'listMemoryEvents'> = await node.client.call('listMemoryEvents', {
        spaceId,
        status: 'all',
        limit: 200,
        offset,
      });
      for (const e of page.events) counts.set(e.id, e.weight.mentionCount);
      offset = page.nextOffset;
    }
    return counts;
  }

  return {
    rounds,
    repeats,
    /** Time spent in answer mode so far. */
    seconds: () => ms / 1000,

    async runSample(ctx: {
      node: TestNode;
      spaceId: string;
      sample: LocomoSample;
      /** The retrieval eval's scored questions, with their index in `sample.qa`. */
      questions: { index: number; qa: LocomoQa }[];
      settle: () => Promise<void>;
      tag: string;
    }): Promise<void> {
      const started = performance.now();
      const { node, spaceId, sample } = ctx;
      const conv = sample.conversation;
      const speakers = [
        typeof conv.speaker_a === 'string' ? conv.speaker_a : 'speaker A',
        typeof conv.speaker_b === 'string' ? conv.speaker_b : 'speaker B',
      ] as const;
      const questions =
        limitQuestions === null ? ctx.questions : ctx.questions.slice(0, limitQuestions);
      const before = await mentionCounts(node, spaceId);
      const mine: AnswerRecord[] = [];
      for (let repeat = 1; repeat <= repeats; repeat++) {
        for (const [done, { index, qa }] of questions.entries()) {
          const gold = qa.answer === undefined || qa.answer === null ? null : String(qa.answer);
          const adversarialAnswer =
            qa.adversarial_answer === undefined || qa.adversarial_answer === null
              ? null
              : String(qa.adversarial_answer);
          const outcome = await answerQuestion({
            client: node.client,
            spaceId,
            threadId: `answer-r${repeat}-q${index}`,
            question: qa.question,
            speakers,
            rounds,
            chat: agentChat,
          });
          const judge =
            outcome.error === null
              ? await judgeAnswer({
                  chat: judgeChat,
                  category: qa.category,
                  question: qa.question,
                  gold,
                  adversarialAnswer,
                  answer: outcome.answer,
                })
              : {
                  verdict: 'WRONG' as const,
                  reason: 'not judged: the agent failed',
                  tokens: noTokens(),
                  ms: 0,
                  error: 'not judged',
                };
          mine.push({
            ...outcome,
            sampleId: sample.sample_id,
            category: qa.category,
            question: qa.question,
            gold,
            adversarialAnswer,
            repeat,
            judge,
          });
          if ((done + 1) % 25 === 0) {
            log(`${ctx.tag} answer run ${repeat}/${repeats}: ${done + 1}/${questions.length}`);
          }
        }
        const run = mine.filter((r) => r.repeat === repeat);
        const correct = run.filter((r) => r.judge.verdict === 'CORRECT').length;
        log(
          `${ctx.tag} answer run ${repeat}/${repeats}: ${correct}/${run.length} CORRECT, ` +
            `${run.filter((r) => r.uncertain).length} uncertain, ${run.filter((r) => r.error).length} errors`,
        );
      }
      // Adoptions are log records the projector applies; wait for them before reading counts.
      await ctx.settle();
      const after = await mentionCounts(node, spaceId);
      const expected: Record<string, number> = {};
      for (const b of mine.flatMap((r) => r.batches)) {
        for (const id of b.eventIds) expected[id] = (expected[id] ?? 0) + 1;
      }
      const observed: Record<string, number> = {};
      for (const [id, n] of after) {
        const delta = n - (before.get(id) ?? 0);
        if (delta !== 0 || id in expected) observed[id] = delta;
      }
      const ids = new Set([...Object.keys(expected), ...Object.keys(observed)]);
      const ok = [...ids].every((id) => (expected[id] ?? 0) === (observed[id] ?? 0));
      checks.push({ sampleId: sample.sample_id, expected, observed, ok });
      if (!ok) log(`${ctx.tag} WARNING: mention counts do not match the adoptions`);
      records.push(...mine);
      ms += performance.now() - started;
      if (options.afterAnswer) await options.afterAnswer({ node, spaceId, sample, records: mine });
    },

    finish(meta: { dataset: string; backend: string }): AnswerReport {
      const summary = summarise(records, repeats, checks);
      const seconds = Math.round(ms / 10) / 100; // 0.01 s
      const settings = {
        rounds,
        repeats,
        limitQuestions,
        agentModel: options.agent.model,
        judgeModel: judgeConfig.model,
        responseFormat: options.agent.responseFormat ?? 'json_object',
        promptVersions: PROMPT_VERSIONS,
        agent: AGENT_SETTINGS,
        questions:
          'the retrieval report’s scored questions (categories 1–5 with valid gold evidence), in dataset order',
        memory:
          'built by the eval’s node with the offline provider; the model only drives the agent and the judge',
      };
      return {
        ...meta,
        generatedAt: new Date().toISOString(),
        settings,
        seconds,
        summary,
        reinforcement: checks,
        answers: records,
        markdown: answerMarkdown({
          ...meta,
          agentModel: settings.agentModel,
          judgeModel: settings.judgeModel,
          rounds,
          repeats,
          seconds,
          summary,
        }),
      };
    },
  };
}

export type AnswerMode = ReturnType<typeof createAnswerMode>;
