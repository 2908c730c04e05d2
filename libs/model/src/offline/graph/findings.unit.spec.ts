import { describe, expect, it } from 'vitest';
import { chineseFindings } from './chinese-findings.ts';
import { englishFindings } from './english-findings.ts';
import { isHedged, subjectOf } from './findings.ts';
import { normaliseName, projectKey } from './names.ts';
import { proposeGraphOffline } from './propose-graph.ts';
import { stateFindings } from './state-cues.ts';
import { contextNode, edgeLines, graphEvent } from './test-fixtures.ts';

const summary = (findings: ReturnType<typeof englishFindings>) =>
  findings.map((f) =>
    f.kind === 'entity'
      ? `${f.type}:${f.name}`
      : f.kind === 'link'
        ? `${f.subject.kind}-${f.relation}->${f.name}`
        : `${f.subject.kind}:${f.value}`,
  );

describe('graph cue recognisers', () => {
  it('tells tools from places and plain words after usage cues', () => {
    expect(summary(englishFindings('We moved to pnpm'))).toEqual(['group-uses->pnpm']);
    expect(summary(englishFindings('Dana moved to Berlin'))).toEqual(['tail-lives_in->Berlin']);
    expect(summary(englishFindings('The linter uses tabs'))).toEqual([]);
    expect(summary(englishFindings('We switched from npm to pnpm'))).toEqual([
      'tool:npm',
      'group-uses->pnpm',
    ]);
  });

  it('keeps the month May from reading as a hedge, and real hedges as hedges', () => {
    expect(isHedged('In May we')).toBe(false);
    expect(isHedged('We may')).toBe(true);
    expect(isHedged("We don't")).toBe(true);
    expect(isHedged('我们打算')).toBe(true);
    expect(summary(englishFindings('We will switch to yarn, or we might use Bun'))).toEqual([
      'tool:Bun',
    ]);
  });

  it('reads subjects: group, self, a named project, other words', () => {
    expect(subjectOf('This project now')).toEqual({ kind: 'group' });
    expect(subjectOf('Last year I')).toEqual({ kind: 'self' });
    expect(subjectOf('Project Phoenix has')).toEqual({ kind: 'project', name: 'Phoenix' });
    expect(subjectOf('项目X 已经')).toEqual({ kind: 'project', name: 'X' });
    expect(subjectOf('Project Manager')).toEqual({ kind: 'tail', text: 'Project Manager' });
  });

  it('finds organizations by work cue, company cue and legal suffix', () => {
    expect(summary(englishFindings('Dana works for BetaCorp'))).toEqual([
      'tail-works_at->BetaCorp',
      'organization:BetaCorp',
    ]);
    expect(summary(englishFindings('She used to work at Acme Inc'))).toEqual([
      'organization:Acme Inc',
      'organization:Acme Inc',
    ]);
    expect(summary(chineseFindings('我在腾讯公司上班'))).toEqual(['self-works_at->腾讯公司']);
    expect(summary(chineseFindings('我们公司很好'))).toEqual([]);
  });

  it('reads literal states only, and not their negation', () => {
    expect(summary(stateFindings('The release is still pending review'))).toEqual([
      'tail:pending review',
    ]);
    expect(summary(stateFindings('CI has not been verified yet'))).toEqual([
      'tail:pending verification',
    ]);
    expect(summary(stateFindings("CI doesn't have to be verified"))).toEqual([]);
    expect(summary(stateFindings('CI 还需要验证'))).toEqual(['tail:pending verification']);
    expect(summary(stateFindings('CI passed'))).toEqual([]);
  });

  it('normalises names as MM-GRF-6 does', () => {
    expect(normaliseName('Alpha Corp')).toBe(normaliseName('alpha_corp'));
    expect(normaliseName('ＡｌｐｈａCorp')).toBe('alphacorp');
    expect(projectKey('Project X')).toBe(projectKey('x'));
  });
});

describe('graph proposer: names and aliases', () => {
  it('gives a context node one draft for its name and its alias, the alias with its own sources', () => {
    const result = proposeGraphOffline({
      events: [
        graphEvent('a1', 'Dana at Alpha Corp', 'Dana works at Alpha Corp.', {
          participants: ['Dana'],
          scope: 'user',
        }),
        graphEvent('a2', 'Dana at AlphaCo', 'Dana works at AlphaCo.', {
          participants: ['Dana'],
          scope: 'user',
        }),
      ],
      nodes: [contextNode('node_alpha', 'Alpha Corp', 'organization', ['AlphaCo'])],
      edges: [],
    });
    const org = result.nodes.find((n) => n.ref === 'node_alpha');
    expect(org).toMatchObject({
      name: 'Alpha Corp',
      nameSourceEventIds: ['a1'],
      aliases: [{ value: 'AlphaCo', sourceEventIds: ['a2'] }],
    });
    expect(edgeLines(result)).toEqual(['Dana -works_at-> Alpha Corp [a1,a2]']);
  });

  it('does not tie an organization’s location to a person', () => {
    const result = proposeGraphOffline({
      events: [graphEvent('b', 'Acme', 'Acme Inc is based in Berlin.', { participants: ['Dana'] })],
      nodes: [],
      edges: [],
    });
    expect(result.nodes.map((n) => `${n.type}:${n.name}`)).toEqual([
      'person:Dana',
      'organization:Acme Inc',
      'place:Berlin',
    ]);
    expect(result.edges).toEqual([]);
  });
});
