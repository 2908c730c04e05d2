import { setTimeout as delay } from 'node:timers/promises';
import { ModelError, type ModelUsage } from '../model-port.ts';
import { backoffDelayMs, retryAfterMs } from './backoff.ts';

/** One chat completion as the provider needs it; `finishReason` explains truncated JSON. */
export interface ChatReply {
  content: string;
  finishReason: string | null;
  usage: ModelUsage | null;
}

export interface ChatTransportOptions {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  maxRetries: number;
  fetch: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

export type ChatTransport = (
  body: Record<string, unknown>,
  signal?: AbortSignal,
) => Promise<ChatReply>;

/** The outcome of one HTTP attempt that failed in a way another attempt can fix. */
interface Retryable {
  error: ModelError;
  waitMs: number | null;
}

const SNIPPET_CHARS = 300;
const WRONG_URL_HINT = 'is the base URL right? It usually ends in the API version, e.g. /v1';

/**
 * POST `${baseUrl}/chat/completions` with a per-attempt timeout and bounded retries of transient
 * failures only (network, timeout, 429, 5xx). Anything else fails at once: repeating a rejected
 * request cannot help, and the job runner has its own attempt cap (MM-JOB-3). The API key is
 * scrubbed from every message, since error text ends up in logged records.
 */
export function createChatTransport(options: ChatTransportOptions): ChatTransport {
  const url = `${options.baseUrl}/chat/completions`;
  const shownUrl = withoutCredentials(url);
  const key = options.apiKey;
  const redact = (text: string) => (key ? text.replaceAll(key, '[redacted]') : text);
  const fail = (message: string, code: string, transient: boolean) =>
    new ModelError(redact(message), code, transient);
  // An injected sleep means a test is watching the delays; fixed jitter keeps them exact.
  const random = options.sleep ? () => 0 : Math.random;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    ...(key ? { authorization: `Bearer ${key}` } : {}),
  };

  async function attempt(payload: string, caller?: AbortSignal): Promise<ChatReply | Retryable> {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = caller ? AbortSignal.any([timeout, caller]) : timeout;
    let response: Response;
    let text: string;
    try {
      response = await options.fetch(url, { method: 'POST', headers, body: payload, signal });
      text = await response.text();
    } catch (error) {
      if (caller?.aborted) throw callerAbort(caller);
      if (timeout.aborted) {
        return {
          error: fail(`timed out after ${options.timeoutMs} ms`, 'timeout', true),
          waitMs: null,
        };
      }
      return { error: fail(`network error: ${describe(error)}`, 'network', true), waitMs: null };
    }
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    const detail = `${status} from POST ${shownUrl}: ${snippet(text)}`;
    if (response.status === 429 || response.status >= 500) {
      return {
        error: fail(detail, `http_${response.status}`, true),
        waitMs: retryAfterMs(response.headers.get('retry-after')),
      };
    }
    if (!response.ok) {
      const hint = response.status === 404 ? ` (${WRONG_URL_HINT})` : '';
      throw fail(`model request rejected: ${detail}${hint}`, `http_${response.status}`, false);
    }
    return parseEnvelope(text, (message) => fail(message, 'bad_response', false));
  }

  async function wait(ms: number, caller?: AbortSignal): Promise<void> {
    if (options.sleep) await options.sleep(ms);
    else await delay(ms, undefined, caller ? { signal: caller } : {}).catch(() => undefined);
    if (caller?.aborted) throw callerAbort(caller);
  }

  return async (body, caller) => {
    const payload = JSON.stringify(body);
    const maxAttempts = options.maxRetries + 1;
    for (let n = 1; ; n += 1) {
      if (caller?.aborted) throw callerAbort(caller);
      const outcome = await attempt(payload, caller);
      if (!('error' in outcome)) return outcome;
      if (n >= maxAttempts) {
        const { message, code } = outcome.error;
        throw fail(`model request failed after ${n} attempts: ${message}`, code, true);
      }
      await wait(outcome.waitMs ?? backoffDelayMs(n, random), caller);
    }
  };

  /** Not retried here: the caller gave up (shutdown, or its own job timeout). */
  function callerAbort(caller: AbortSignal): ModelError {
    const reason: unknown = caller.reason;
    const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
    return timedOut
      ? fail('model call timed out (caller deadline)', 'timeout', true)
      : fail('model call aborted by the caller', 'aborted', true);
  }
}

/** A 200 that is not a chat completion is almost always a wrong base URL, not a flaky server. */
function parseEnvelope(text: string, fail: (message: string) => ModelError): ChatReply {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw fail(`response is not a chat completion (${WRONG_URL_HINT}): ${snippet(text)}`);
  }
  const envelope = body as {
    choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  };
  const choice = Array.isArray(envelope.choices) ? envelope.choices[0] : undefined;
  if (!choice || typeof choice !== 'object') {
    throw fail(`response has no choices (${WRONG_URL_HINT}): ${snippet(text)}`);
  }
  const content = choice.message?.content;
  const usage = envelope.usage;
  return {
    content: typeof content === 'string' ? content : '',
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    usage:
      usage &&
      typeof usage.prompt_tokens === 'number' &&
      typeof usage.completion_tokens === 'number'
        ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens }
        : null,
  };
}

/** undici reports "fetch failed" and hides the useful part (ECONNREFUSED, reset) in `cause`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  if (flat === '') return '(empty body)';
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}…` : flat;
}

function withoutCredentials(raw: string): string {
  const url = new URL(raw);
  url.username = '';
  url.password = '';
  return url.toString();
}
