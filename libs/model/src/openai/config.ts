/** Configuration of the OpenAI-compatible provider and its environment loader. */

export type ResponseFormatMode = 'json_schema' | 'json_object';

export interface OpenAiCompatibleConfig {
  /** Up to and including the API version, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` only when set; local servers usually need none. */
  apiKey?: string;
  model: string;
  /** Per HTTP call, not per task: a structured retry or a transient retry gets a fresh budget. */
  timeoutMs?: number;
  /** Extra attempts after a transient failure (network, timeout, 429, 5xx); 0 disables. */
  maxRetries?: number;
  /** Extra calls after invalid output, each carrying the exact validation errors; 0 disables. */
  structuredRetries?: number;
  /** `json_object` works almost everywhere (DeepSeek lacks `json_schema`); `json_schema` constrains harder. */
  responseFormat?: ResponseFormatMode;
  fetch?: typeof fetch;
  /** Injected by tests: replaces real waiting and fixes the backoff jitter, so delays are exact. */
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_STRUCTURED_RETRIES = 1;
export const DEFAULT_RESPONSE_FORMAT: ResponseFormatMode = 'json_object';

/** The same floor the runtime config applies to STRATAGATE_MODEL_TIMEOUT_MS. */
const MIN_TIMEOUT_MS = 100;

export const MODEL_ENV = {
  baseUrl: 'STRATAGATE_MODEL_BASE_URL',
  apiKey: 'STRATAGATE_MODEL_API_KEY',
  model: 'STRATAGATE_MODEL_NAME',
  timeoutMs: 'STRATAGATE_MODEL_TIMEOUT_MS',
  responseFormat: 'STRATAGATE_MODEL_RESPONSE_FORMAT',
} as const;

/**
 * The model configuration from the environment, or null when none is configured (the caller then
 * uses the offline provider). Blank values count as unset. The timeout alone configures no model:
 * the runtime reads it for the offline provider too. Errors name the variable but never echo the
 * key, nor the base URL (it may carry credentials).
 */
export function loadModelConfigFromEnv(
  env: Record<string, string | undefined>,
): OpenAiCompatibleConfig | null {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const baseUrl = read(MODEL_ENV.baseUrl);
  const apiKey = read(MODEL_ENV.apiKey);
  const model = read(MODEL_ENV.model);
  const responseFormat = read(MODEL_ENV.responseFormat);

  if (baseUrl === undefined) {
    const stray = [MODEL_ENV.apiKey, MODEL_ENV.model, MODEL_ENV.responseFormat].filter(
      (name) => read(name) !== undefined,
    );
    if (stray.length === 0) return null;
    throw new Error(`${MODEL_ENV.baseUrl} is required when ${stray.join(', ')} is set`);
  }
  if (!isHttpUrl(baseUrl)) {
    throw new Error(
      `${MODEL_ENV.baseUrl} must be an http(s) URL such as https://api.openai.com/v1 or http://localhost:11434/v1`,
    );
  }
  if (model === undefined) {
    throw new Error(`${MODEL_ENV.model} is required when ${MODEL_ENV.baseUrl} is set`);
  }
  if (responseFormat !== undefined && !isResponseFormat(responseFormat)) {
    throw new Error(
      `${MODEL_ENV.responseFormat} must be json_object or json_schema, got '${responseFormat}'`,
    );
  }
  return {
    baseUrl: normaliseBaseUrl(baseUrl),
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    timeoutMs: parseTimeout(read(MODEL_ENV.timeoutMs)),
    responseFormat: responseFormat ?? DEFAULT_RESPONSE_FORMAT,
  };
}

function parseTimeout(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_TIMEOUT_MS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < MIN_TIMEOUT_MS) {
    throw new Error(
      `${MODEL_ENV.timeoutMs} must be an integer number of milliseconds ≥ ${MIN_TIMEOUT_MS}, got '${raw}'`,
    );
  }
  return value;
}

function isResponseFormat(value: string): value is ResponseFormatMode {
  return value === 'json_object' || value === 'json_schema';
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Trailing slashes would double up in `${baseUrl}/chat/completions`. */
export function normaliseBaseUrl(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/u, '');
}
