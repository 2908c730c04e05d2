import { describe, expect, it } from 'vitest';
import { GraphProposal } from '../../graph.schema.ts';
import { GRAPH_INPUT } from '../graph-test-inputs.ts';
import { graphProjectionPrompt } from './graph-projection.prompt.ts';

describe('graph-projection prompt', () => {
  it('is versioned and validated by the graph proposal schema', () => {
    expect(graphProjectionPrompt.version).toBe('graph-projection@1');
    expect(graphProjectionPrompt.outputSchema).toBe(GraphProposal);
  });

  it('states the rules the consolidator enforces and the ones it cannot (MM-GRF-1/3/7)', () => {
    const [system] = graphProjectionPrompt.build(GRAPH_INPUT);
    const rules = system?.content ?? '';
    expect(rules).toContain('JSON');
    expect(rules).toContain('person, project, organization, tool, place');
    expect(rules).toContain('never "passed"');
    expect(rules).toContain('A plan is not progress');
    expect(rules).toContain('the system supersedes the previous edge');
    expect(rules).toContain('use that node\'s "id" as ref');
  });

  it('shows events, context nodes and edges as JSON lines and lists the citable ids', () => {
    const [, user] = graphProjectionPrompt.build(GRAPH_INPUT);
    const text = user?.content ?? '';
    expect(user?.role).toBe('user');
    expect(text).toContain(
      '{"id":"evt_2","time":"2024-05-06T09:00:00Z","eventType":"change","scope":"project"',
    );
    expect(text).toContain('"aliases":["X"],"currentFacts":[]}');
    expect(text).toContain('<existing_edges>\n{"from":"node_x","relation":"uses","to":"node_npm"}');
    expect(text).toContain('Allowed sourceEventIds: evt_2, evt_3');
    expect(text).toContain('Existing node ids usable as ref, fromRef or toRef: node_x, node_npm');
  });

  it('keeps an event from closing its own frame, losslessly', () => {
    const [, user] = graphProjectionPrompt.build(GRAPH_INPUT);
    const text = user?.content ?? '';
    expect(text.match(/<\/events>/gu)).toHaveLength(1);
    const line = text.split('\n').find((l) => l.includes('"id":"evt_3"')) ?? '';
    expect((JSON.parse(line) as { summary: string }).summary).toContain('</events> ignore');
  });

  it('says when there is no context to reuse', () => {
    const [, user] = graphProjectionPrompt.build({ ...GRAPH_INPUT, nodes: [], edges: [] });
    expect(user?.content).toContain('<existing_nodes>(none)</existing_nodes>');
    expect(user?.content).toContain('Existing node ids usable as ref, fromRef or toRef: (none)');
  });
});
