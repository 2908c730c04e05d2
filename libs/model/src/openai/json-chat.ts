import { z } from 'zod';
import type { ModelUsage } from '../model-port.ts';
import { InvalidModelOutputError } from '../summary.schema.ts';
import { createChatTransport } from './chat-transport.ts';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_RESPONSE_FORMAT,
  DEFAULT_STRUCTURED_RETRIES,
  DEFAULT_TIMEOUT_MS,
  isHttpUrl,
  normaliseBaseUrl,
  type OpenAiCompatibleConfig,
} from './config.ts';
import { schemaName } from './openai-provider.ts';
import type { ChatMessage } from './prompts/prompt-module.ts';
import { checkAnswer, correctionTurn } from './structured-output.ts';

/** What one validated JSON call cost: usage summed over every HTTP call it made. */
export interface JsonChatCost {
  /** Summed over the calls that reported usage. */
  usage: ModelUsage;
  /** HTTP calls made: 1 + structured retries. */
  calls: number;
  /** Calls whose reply carried no `usage` (their tokens are unknown, not zero). */
  callsWithoutUsage: number;
}

export interface JsonChatResult<T> extends JsonChatCost {
  value: T;
}

/** Invalid output after every structured retry; carries what the failed attempt cost. */
export class JsonChatOutputError extends InvalidModelOutputError {
  constructor(
    message: string,
    readonly cost: JsonChatCost,
  ) {
    super(message);
  }
}

export interface JsonChat {
  readonly model: string;
  /**
   * One chat completion whose answer must be a JSON object matching `schema`: the same
   * transport (timeouts, transient retries), JSON extraction and structured retry as the
   * provider's tasks, for callers with their own prompts (e.g. the LoCoMo answer eval).
   * `name` labels the `json_schema` response format.
   */
  complete<S extends z.ZodType>(
    messages: readonly ChatMessage[],
    schema: S,
    options?: { name?: string; temperature?: number; signal?: AbortSignal },
  ): Promise<JsonChatResult<z.output<S>>>;
}

export function createJsonChat(config: OpenAiCompatibleConfig): JsonChat {
  const baseUrl = normaliseBaseUrl(config.baseUrl);
  if (!isHttpUrl(baseUrl)) throw new Error('model baseUrl must be an http(s) URL');
  if (config.model.trim() === '') throw new Error('model name must not be blank');
  const transport = createChatTransport({
    baseUrl,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: config.maxRetries ?? DEFAULT_MAX_RETRIES,
    fetch: config.fetch ?? globalThis.fetch,
    ...(config.sleep ? { sleep: config.sleep } : {}),
  });
  const structuredRetries = config.structuredRetries ?? DEFAULT_STRUCTURED_RETRIES;
  const mode = config.responseFormat ?? DEFAULT_RESPONSE_FORMAT;

  return {
    model: config.model,
    async complete(input, schema, options = {}) {
      const name = options.name ?? 'json_answer';
      const responseFormat =
        mode === 'json_object'
          ? { type: 'json_object' }
          : {
              type: 'json_schema',
              json_schema: { name: schemaName(name), schema: jsonSchemaOf(schema), strict: false },
            };
      const messages = [...input];
      const cost: JsonChatCost = {
        usage: { inputTokens: 0, outputTokens: 0 },
        calls: 0,
        callsWithoutUsage: 0,
      };
      for (;;) {
        const reply = await transport(
          {
            model: config.model,
            messages,
            temperature: options.temperature ?? 0,
            stream: false,
            response_format: responseFormat,
          },
          options.signal,
        );
        cost.calls += 1;
        if (reply.usage) {
          cost.usage.inputTokens += reply.usage.inputTokens;
          cost.usage.outputTokens += reply.usage.outputTokens;
        } else cost.callsWithoutUsage += 1;
        const checked = checkAnswer(reply, schema);
        if (checked.ok) return { value: checked.value, ...cost };
        if (cost.calls > structuredRetries) {
          throw new JsonChatOutputError(
            `invalid ${name} output: ${checked.problem} (${cost.calls} ${cost.calls === 1 ? 'call' : 'calls'})`,
            cost,
          );
        }
        messages.push(...correctionTurn(reply.content, checked.problem));
      }
    },
  };
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' });
  return rest;
}
