import { z } from 'zod';
import type { ModelPort, ModelUsage } from '../model-port.ts';
import { InvalidModelOutputError } from '../summary.schema.ts';
import { createChatTransport, type ChatTransport } from './chat-transport.ts';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_RESPONSE_FORMAT,
  DEFAULT_STRUCTURED_RETRIES,
  DEFAULT_TIMEOUT_MS,
  isHttpUrl,
  normaliseBaseUrl,
  type OpenAiCompatibleConfig,
  type ResponseFormatMode,
} from './config.ts';
import { blockSummaryPrompt } from './prompts/block-summary.prompt.ts';
import { graphProjectionPrompt } from './prompts/graph-projection.prompt.ts';
import { memoryEventsPrompt } from './prompts/memory-events.prompt.ts';
import { externalMemoryRecoveryPrompt } from './prompts/external-memory-recovery.prompt.ts';
import { importDeciderPrompt } from './prompts/import-decider.prompt.ts';
import { rememberDeciderPrompt } from './prompts/remember-decider.prompt.ts';
import { profileCompressionPrompt } from './prompts/profile-compression.prompt.ts';
import { topicsPrompt } from './prompts/topics.prompt.ts';
import type { PromptModule } from './prompts/prompt-module.ts';
import { checkAnswer, correctionTurn } from './structured-output.ts';

export const OPENAI_PROVIDER_NAME = 'openai-compatible';

interface TaskResult<T> {
  output: T;
  provider: string;
  model: string;
  promptVersion: string;
  usage?: ModelUsage;
}

/**
 * A ModelPort over any OpenAI-compatible `/chat/completions` endpoint (OpenAI, DeepSeek, vLLM,
 * Ollama, LM Studio), chosen by configuration alone. It only calls and validates; the caller
 * records the result or the failure (MM-GEN-9), so no failure here can lose a turn or a block.
 */
export function createOpenAiCompatibleProvider(config: OpenAiCompatibleConfig): ModelPort {
  const baseUrl = normaliseBaseUrl(config.baseUrl);
  if (!isHttpUrl(baseUrl)) throw new Error('model baseUrl must be an http(s) URL');
  if (config.model.trim() === '') throw new Error('model name must not be blank');
  const maxRetries = nonNegativeInteger(config.maxRetries, DEFAULT_MAX_RETRIES, 'maxRetries');
  const structuredRetries = nonNegativeInteger(
    config.structuredRetries,
    DEFAULT_STRUCTURED_RETRIES,
    'structuredRetries',
  );
  const transport = createChatTransport({
    baseUrl,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    timeoutMs: positiveNumber(config.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs'),
    maxRetries,
    fetch: config.fetch ?? globalThis.fetch,
    ...(config.sleep ? { sleep: config.sleep } : {}),
  });
  const responseFormat = config.responseFormat ?? DEFAULT_RESPONSE_FORMAT;
  if (responseFormat !== 'json_object' && responseFormat !== 'json_schema') {
    throw new Error(
      `responseFormat must be json_object or json_schema, got ${String(responseFormat)}`,
    );
  }
  const run = <I, S extends z.ZodType>(
    prompt: PromptModule<I, S>,
    input: I,
    failurePrefix: string,
    signal?: AbortSignal,
  ): Promise<TaskResult<z.output<S>>> =>
    runStructuredTask({
      transport,
      model: config.model,
      responseFormat,
      structuredRetries,
      prompt,
      input,
      failurePrefix,
      ...(signal ? { signal } : {}),
    });

  return {
    name: OPENAI_PROVIDER_NAME,
    summarizeBlock: (input, options) =>
      run(blockSummaryPrompt, input, 'invalid L0-L2 layers', options?.signal),
    extractMemoryEvents: (input, options) =>
      run(memoryEventsPrompt, input, 'invalid extraction output', options?.signal),
    proposeGraph: (input, options) =>
      run(graphProjectionPrompt, input, 'invalid graph proposal', options?.signal),
    decideRemember: (input, options) =>
      run(rememberDeciderPrompt, input, 'invalid remember decision', options?.signal),
    compressProfile: (input, options) =>
      run(profileCompressionPrompt, input, 'invalid profile compression', options?.signal),
    decideImport: (input, options) =>
      run(importDeciderPrompt, input, 'invalid import decision', options?.signal),
    recoverExternalMemory: (input, options) =>
      run(externalMemoryRecoveryPrompt, input, 'invalid recovered export', options?.signal),
    buildTopics: (input, options) =>
      run(topicsPrompt, input, 'invalid topic proposal', options?.signal),
  };
}

interface StructuredTask<I, S extends z.ZodType> {
  transport: ChatTransport;
  model: string;
  responseFormat: ResponseFormatMode;
  structuredRetries: number;
  prompt: PromptModule<I, S>;
  input: I;
  /** Kept stable: the consolidator records it as the failure message (MM-BLK-7). */
  failurePrefix: string;
  signal?: AbortSignal;
}

/**
 * One prompt, validated: the first call, then up to `structuredRetries` corrective calls that
 * continue the conversation with the exact validation problem. Usage covers every call made.
 */
async function runStructuredTask<I, S extends z.ZodType>(
  task: StructuredTask<I, S>,
): Promise<TaskResult<z.output<S>>> {
  const { prompt } = task;
  const messages = prompt.build(task.input);
  const responseFormat = buildResponseFormat(task.responseFormat, prompt);
  let usage: ModelUsage | undefined;
  for (let call = 0; ; call += 1) {
    const reply = await task.transport(
      {
        model: task.model,
        messages,
        temperature: 0,
        stream: false,
        response_format: responseFormat,
      },
      task.signal,
    );
    if (reply.usage) usage = addUsage(usage, reply.usage);
    const checked = checkAnswer(reply, prompt.outputSchema);
    if (checked.ok) {
      return {
        output: checked.value,
        provider: OPENAI_PROVIDER_NAME,
        model: task.model,
        promptVersion: prompt.version,
        ...(usage ? { usage } : {}),
      };
    }
    if (call >= task.structuredRetries) {
      const calls = call + 1;
      throw new InvalidModelOutputError(
        `${task.failurePrefix}: ${checked.problem} (${calls} ${calls === 1 ? 'call' : 'calls'}, prompt ${prompt.version})`,
      );
    }
    messages.push(...correctionTurn(reply.content, checked.problem));
  }
}

/**
 * `json_schema` carries the schema of what the model must write, i.e. the zod *input* side
 * (defaulted fields optional). Not `strict`: OpenAI's strict mode rejects optional fields, and
 * vLLM, Ollama and LM Studio treat the schema as a grammar either way.
 */
function buildResponseFormat(
  mode: ResponseFormatMode,
  prompt: { version: string; outputSchema: z.ZodType },
): Record<string, unknown> {
  if (mode === 'json_object') return { type: 'json_object' };
  const { $schema: _dialect, ...schema } = z.toJSONSchema(prompt.outputSchema, { io: 'input' });
  return {
    type: 'json_schema',
    json_schema: { name: schemaName(prompt.version), schema, strict: false },
  };
}

/** OpenAI limits the name to [a-zA-Z0-9_-]{1,64}; the version keeps it traceable. */
export function schemaName(version: string): string {
  return version.replace(/[^a-zA-Z0-9_-]/gu, '_').slice(0, 64);
}

function addUsage(total: ModelUsage | undefined, add: ModelUsage): ModelUsage {
  return {
    inputTokens: (total?.inputTokens ?? 0) + add.inputTokens,
    outputTokens: (total?.outputTokens ?? 0) + add.outputTokens,
  };
}

function nonNegativeInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

function positiveNumber(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} must be a positive number, got ${value}`);
  }
  return value;
}
