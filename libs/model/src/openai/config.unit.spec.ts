import { describe, expect, it } from 'vitest';
import { loadModelConfigFromEnv } from './config.ts';

const KEY = 'sk-do-not-print-me-42';

function loadError(env: Record<string, string>): string {
  try {
    loadModelConfigFromEnv(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

describe('loadModelConfigFromEnv', () => {
  it('is null when no model is configured, including a lone timeout', () => {
    expect(loadModelConfigFromEnv({})).toBeNull();
    expect(loadModelConfigFromEnv({ STRATAGATE_MODEL_TIMEOUT_MS: '5000' })).toBeNull();
    expect(loadModelConfigFromEnv({ STRATAGATE_MODEL_BASE_URL: '  ' })).toBeNull();
  });

  it('reads a full configuration', () => {
    expect(
      loadModelConfigFromEnv({
        STRATAGATE_MODEL_BASE_URL: 'https://api.deepseek.com/v1/',
        STRATAGATE_MODEL_API_KEY: KEY,
        STRATAGATE_MODEL_NAME: 'deepseek-chat',
        STRATAGATE_MODEL_TIMEOUT_MS: '60000',
        STRATAGATE_MODEL_RESPONSE_FORMAT: 'json_schema',
      }),
    ).toEqual({
      baseUrl: 'https://api.deepseek.com/v1',
      apiKey: KEY,
      model: 'deepseek-chat',
      timeoutMs: 60000,
      responseFormat: 'json_schema',
    });
  });

  it('applies defaults and treats a blank key as no key (local servers)', () => {
    expect(
      loadModelConfigFromEnv({
        STRATAGATE_MODEL_BASE_URL: 'http://localhost:11434/v1',
        STRATAGATE_MODEL_NAME: 'qwen2.5:7b',
        STRATAGATE_MODEL_API_KEY: '',
      }),
    ).toEqual({
      baseUrl: 'http://localhost:11434/v1',
      model: 'qwen2.5:7b',
      timeoutMs: 120000,
      responseFormat: 'json_object',
    });
  });

  it('names the variable that is wrong, and never echoes the key or the URL', () => {
    const base = {
      STRATAGATE_MODEL_BASE_URL: 'http://localhost:1234/v1',
      STRATAGATE_MODEL_NAME: 'm',
    };
    expect(loadError({ STRATAGATE_MODEL_API_KEY: KEY })).toBe(
      'STRATAGATE_MODEL_BASE_URL is required when STRATAGATE_MODEL_API_KEY is set',
    );
    const badUrl = loadError({
      STRATAGATE_MODEL_BASE_URL: `ftp://user:${KEY}@host`,
      STRATAGATE_MODEL_NAME: 'm',
    });
    expect(badUrl).toMatch(/^STRATAGATE_MODEL_BASE_URL must be an http\(s\) URL/u);
    expect(badUrl).not.toContain(KEY);
    expect(
      loadError({
        STRATAGATE_MODEL_BASE_URL: 'http://localhost:1234/v1',
        STRATAGATE_MODEL_API_KEY: KEY,
      }),
    ).toBe('STRATAGATE_MODEL_NAME is required when STRATAGATE_MODEL_BASE_URL is set');
    expect(loadError({ ...base, STRATAGATE_MODEL_TIMEOUT_MS: '2m' })).toMatch(
      /^STRATAGATE_MODEL_TIMEOUT_MS must be an integer .* got '2m'/u,
    );
    expect(loadError({ ...base, STRATAGATE_MODEL_TIMEOUT_MS: '50' })).toMatch(/TIMEOUT_MS/u);
    expect(loadError({ ...base, STRATAGATE_MODEL_RESPONSE_FORMAT: 'text' })).toMatch(
      /^STRATAGATE_MODEL_RESPONSE_FORMAT must be json_object or json_schema/u,
    );
  });
});
