import { describe, expect, it } from 'vitest';
import * as model from '../../index.ts';
import { ModelError } from '../../model-port.ts';
import { createOfflineProvider } from '../offline-provider.ts';
import { extractEventsOffline } from './extract-events.ts';
import { PNPM_BLOCK } from './test-fixtures.ts';

describe('offline provider: extractMemoryEvents', () => {
  const provider = createOfflineProvider();

  it('returns the heuristic extraction with its own prompt version', async () => {
    const result = await provider.extractMemoryEvents?.(PNPM_BLOCK);
    expect(result).toEqual({
      output: extractEventsOffline(PNPM_BLOCK),
      provider: 'offline-heuristic',
      promptVersion: 'offline-extract@3',
    });
    expect(result?.output.events).toHaveLength(3);
  });

  it('rejects an aborted call as a transient model error, like summarizeBlock', async () => {
    const controller = new AbortController();
    controller.abort();
    const call = provider.extractMemoryEvents?.(PNPM_BLOCK, { signal: controller.signal });
    await expect(call).rejects.toBeInstanceOf(ModelError);
    await expect(call).rejects.toMatchObject({ code: 'aborted', transient: true });
  });

  it('is exported from the package', () => {
    expect(model.OFFLINE_EXTRACT_PROMPT_VERSION).toBe('offline-extract@3');
    expect(model.extractEventsOffline(PNPM_BLOCK)).toEqual(extractEventsOffline(PNPM_BLOCK));
  });
});
