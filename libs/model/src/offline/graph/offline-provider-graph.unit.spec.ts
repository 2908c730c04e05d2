import { describe, expect, it } from 'vitest';
import * as model from '../../index.ts';
import { ModelError } from '../../model-port.ts';
import { createOfflineProvider } from '../offline-provider.ts';
import { proposeGraphOffline } from './propose-graph.ts';
import { S1_EVENTS } from './test-fixtures.ts';

const INPUT = { events: S1_EVENTS, nodes: [], edges: [] };

describe('offline provider: proposeGraph', () => {
  const provider = createOfflineProvider();

  it('returns the heuristic proposal with its own prompt version', async () => {
    await expect(provider.proposeGraph?.(INPUT)).resolves.toEqual({
      output: proposeGraphOffline(INPUT),
      provider: 'offline-heuristic',
      promptVersion: 'offline-graph@2',
    });
  });

  it('rejects an aborted call as a transient model error', async () => {
    const controller = new AbortController();
    controller.abort();
    const call = provider.proposeGraph?.(INPUT, { signal: controller.signal });
    await expect(call).rejects.toBeInstanceOf(ModelError);
    await expect(call).rejects.toMatchObject({ code: 'aborted', transient: true });
  });

  it('is exported from the package', () => {
    expect(model.OFFLINE_GRAPH_PROMPT_VERSION).toBe('offline-graph@2');
    expect(model.proposeGraphOffline(INPUT)).toEqual(proposeGraphOffline(INPUT));
    expect(model.graphProjectionPrompt.version).toBe('graph-projection@1');
  });
});
