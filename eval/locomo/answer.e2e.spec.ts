import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fakeOpenAiReply as reply,
  startFakeOpenAiServer,
  type FakeOpenAiServer,
  type ScriptedReply,
} from '@stratagate/model/testing';
import { describeBackend } from '@stratagate/store/testing';
import type { TestNode } from '../../test/harness.ts';
import { AnswerModeConfigError, answerModelsFromEnv } from './answer-mode.ts';
import { PROMPT_VERSIONS, UNCERTAIN_PREFIX } from './answer-prompts.ts';
import type { AnswerRecord } from './answer-report.ts';
import type { LocomoSample } from './dataset.ts';
import { runLocomoEval, type LocomoEvalReport } from './run.ts';

/**
 * Answer mode end to end on the retrieval eval's two-session toy conversation: the real node
 * (HTTP routes via inject, PGlite or DATABASE_URL) and a fake OpenAI-compatible server over real
 * HTTP whose handler plays agent and judge deterministically. No real network.
 */
const toy: LocomoSample = {
  sample_id: 'toy-1',
  conversation: {
    speaker_a: 'Caroline',
    speaker_b: 'Melanie',
    session_1_date_time: '1:56 pm on 8 May, 2023',
    session_1: [
      { speaker: 'Caroline', dia_id: 'D1:1', text: 'Hey Mel, good to see you again.' },
      {
        speaker: 'Melanie',
        dia_id: 'D1:2',
        text: 'I finally bought a turquoise xylophone for my nephew.',
      },
      { speaker: 'Caroline', dia_id: 'D1:3', text: 'Nice. I have been reading a lot lately.' },
      { speaker: 'Melanie', dia_id: 'D1:4', text: 'Anything good?' },
      { speaker: 'Caroline', dia_id: 'D1:5', text: 'A novel about lighthouses and shipwrecks.' },
      {
        speaker: 'Melanie',
        dia_id: 'D1:6',
        text: 'Look at this pottery I made.',
        img_url: ['https://example.invalid/bowl.jpg'],
        blip_caption: 'a ceramic bowl with blue glaze',
        query: 'pottery bowl',
      },
      { speaker: 'Caroline', dia_id: 'D1:7', text: 'My cousin plays the bassoon in an orchestra.' },
    ],
    session_2_date_time: '10:37 am on 27 June, 2023',
    session_2: [
      { speaker: 'Melanie', dia_id: 'D2:1', text: 'We adopted a greyhound named Biscuit.' },
      { speaker: 'Caroline', dia_id: 'D2:2', text: "That's lovely news!" },
      { speaker: 'Melanie', dia_id: 'D2:3', text: 'My nephew adores that xylophone.' },
      { speaker: 'Caroline', dia_id: 'D2:4', text: 'I am training for a marathon in Lisbon.' },
      { speaker: 'Melanie', dia_id: 'D2:5', text: 'Good luck with it.' },
      { speaker: 'Caroline', dia_id: 'D2:6', text: 'Thanks, see you soon.' },
    ],
    session_3_date_time: '4:04 pm on 20 January, 2024',
  },
  qa: [
    { question: 'Lisbon marathon training?', answer: 'yes', evidence: ['D2:4'], category: 4 },
    {
      question: 'turquoise xylophone nephew',
      answer: 'a xylophone',
      evidence: ['D1:2; D2:03'],
      category: 1,
    },
    { question: 'bassoon orchestra cousin', answer: 'cousin', evidence: ['D1:7'], category: 4 },
    {
      question: 'greyhound Biscuit adopted',
      answer: 'marzipan',
      evidence: ['D2:1', 'D9:9'],
      category: 2,
    },
    { question: 'ceramic glaze bowl', answer: 'a bowl', evidence: ['D:1:6'], category: 3 },
    {
      question: 'lighthouses shipwrecks novel',
      adversarial_answer: 'a cookbook',
      evidence: ['D1:5'],
      category: 5,
    },
    { question: 'Anything good?', answer: 'n/a', evidence: ['D'], category: 4 },
    { question: 'Good luck?', answer: 'n/a', evidence: [], category: 2 },
  ],
};

/** What the scripted agent looks for in a result line, per question. */
const KEYWORD: Record<string, string> = {
  'Lisbon marathon training?': 'marathon',
  'turquoise xylophone nephew': 'xylophone',
  'bassoon orchestra cousin': 'tuba', // in no turn
  'greyhound Biscuit adopted': 'marzipan', // in no turn
  'ceramic glaze bowl': 'bowl', // the photo's caption
  'lighthouses shipwrecks novel': 'cookbook', // adversarial
};
const GOLD: Record<string, string> = {
  'Lisbon marathon training?': 'yes',
  'turquoise xylophone nephew': 'a xylophone',
  'ceramic glaze bowl': 'a bowl',
};
const AGENT_USAGE = { prompt_tokens: 100, completion_tokens: 10 };
const JUDGE_USAGE = { prompt_tokens: 50, completion_tokens: 5 };

interface Sent {
  messages: { role: string; content: string }[];
}

const questionOf = (user: string) => /^Question[^:]*: (.*)$/m.exec(user)![1]!;
/** Result lines `[ref] …` of a prompt section (context lines are indented and skipped). */
const resultLines = (text: string) => text.split('\n').filter((l) => l.startsWith('['));
const refOf = (line: string) => /^\[([^\]]+)\]/.exec(line)![1]!;
/**
 * Whether a result line itself says the keyword. An event's line quotes the message it answered
 * ("(in reply to …)"): the marathon event quotes the xylophone turn, and once its adoption has
 * raised its weight, recall lists it first.
 */
const mentions = (line: string, keyword: string) =>
  line
    .replace(/\(in reply to [^)]*\)/g, '')
    .toLowerCase()
    .includes(keyword);

type Role = 'plan' | 'assess' | 'answer' | 'judge';
function roleOf(body: Sent): Role {
  const system = body.messages[0]!.content;
  const role = (Object.keys(PROMPT_VERSIONS) as Role[]).find((r) =>
    system.startsWith(PROMPT_VERSIONS[r]),
  );
  if (!role) throw new Error(`unknown prompt: ${system.slice(0, 80)}`);
  return role;
}

/** A deterministic judge: CORRECT iff a confirmed answer contains the gold, or an adversarial
 * question got an unconfirmed answer. Its second verdict on the xylophone question is WRONG. */
function judge(body: Sent, calls: Map<string, number>): ScriptedReply {
  const user = body.messages[1]!.content;
  const question = questionOf(user);
  const n = (calls.get(question) ?? 0) + 1;
  calls.set(question, n);
  const gold = /^Gold answer: (.*)$/m.exec(user)![1]!;
  const answer = /^Answer to grade: (.*)$/m.exec(user)![1]!;
  const unconfirmed = answer.startsWith(UNCERTAIN_PREFIX);
  let correct = /\(adversarial\)/.test(user.split('\n')[0]!)
    ? unconfirmed
    : !unconfirmed && answer.toLowerCase().includes(gold.toLowerCase());
  if (question === 'turquoise xylophone nephew' && n === 2) correct = false;
  return reply.json(
    { verdict: correct ? 'correct' : 'WRONG', reason: correct ? 'matches' : 'does not match' },
    JUDGE_USAGE,
  );
}

/**
 * The scripted agent. Plan: expand the recalled event for the xylophone question, else search
 * events (the very first plan answers with an unknown event id once, which zod rejects, to
 * prove the structured retry). Assess: sufficient with the first result line containing the
 * keyword; otherwise partial and the next tool in turn (events with hits → expand the first
 * event, events without hits → raw, expand → raw, raw → events). Answer: the gold when the
 * gate accepted evidence, else "unknown".
 */
function scriptedAgent(): (body: unknown) => ScriptedReply {
  const judgeCalls = new Map<string, number>();
  let firstPlan = true;
  return (raw) => {
    const body = raw as Sent;
    const role = roleOf(body);
    if (role === 'judge') return judge(body, judgeCalls);
    const user = body.messages[1]!.content;
    const question = questionOf(user);
    const keyword = KEYWORD[question]!;
    if (role === 'plan') {
      if (firstPlan) {
        firstPlan = false;
        return reply.json({ next_strategy: 'expand_event', event_id: 'evt_invented' }, AGENT_USAGE);
      }
      const recalled = resultLines(user.replace(/^- event_id (\S+): /gm, '[event:$1] '));
      const hit = recalled.find((l) => mentions(l, keyword));
      if (question === 'turquoise xylophone nephew' && hit) {
        return reply.json(
          { next_strategy: 'expand_event', event_id: refOf(hit).slice('event:'.length) },
          AGENT_USAGE,
        );
      }
      return reply.json({ next_strategy: 'search_events', query: question }, AGENT_USAGE);
    }
    if (role === 'assess') {
      const latest = user.slice(user.indexOf('Latest batch'));
      const tool = /^Latest batch batch_\d+: (\w+)\(/.exec(latest)![1]!;
      const lines = resultLines(latest);
      const hit = lines.find((l) => mentions(l, keyword));
      if (hit) {
        return reply.json(
          {
            verdict: 'sufficient',
            evidence_refs: [refOf(hit)],
            fit: `mentions ${keyword}`,
            missing: '',
            next_strategy: 'answer',
          },
          AGENT_USAGE,
        );
      }
      const firstEvent = lines.map(refOf).find((r) => r.startsWith('event:'));
      const next =
        tool === 'search_events'
          ? firstEvent
            ? { next_strategy: 'expand_event', event_id: firstEvent.slice('event:'.length) }
            : { next_strategy: 'search_raw', query: question }
          : tool === 'expand_event'
            ? { next_strategy: 'search_raw', query: question }
            : { next_strategy: 'search_events', query: question };
      return reply.json(
        { verdict: 'partial', evidence_refs: [], fit: '', missing: `no ${keyword}`, ...next },
        AGENT_USAGE,
      );
    }
    const accepted = resultLines(user).filter((l) => l.includes('] (accepted)'));
    return reply.json(
      accepted.length
        ? { answer: GOLD[question] ?? 'unknown', used_refs: accepted.map(refOf) }
        : { answer: 'unknown', used_refs: [] },
      AGENT_USAGE,
    );
  };
}

/**
 * An agent that never finds evidence: it always claims "sufficient" with an invented ref (the
 * gate downgrades that to partial), and the model fails outright on the bowl question's first
 * assessment (HTTP 400: a non-retryable model error).
 */
function neverFinds(): (body: unknown) => ScriptedReply {
  const judgeCalls = new Map<string, number>();
  return (raw) => {
    const body = raw as Sent;
    const role = roleOf(body);
    if (role === 'judge') return judge(body, judgeCalls);
    const question = questionOf(body.messages[1]!.content);
    if (role === 'plan') return reply.json({ next_strategy: 'search_raw', query: question });
    if (role === 'assess') {
      if (question === 'ceramic glaze bowl') return reply.status(400, { error: 'bad request' });
      return reply.json({
        verdict: 'sufficient',
        evidence_refs: ['event:evt_invented'],
        fit: 'looks close',
        missing: '',
        next_strategy: 'answer',
      });
    }
    return reply.json({ answer: 'the memory does not say', used_refs: ['event:evt_invented'] });
  };
}

async function mentionCounts(node: TestNode, spaceId: string) {
  const res = await node.request('GET', `/v1/spaces/${spaceId}/memory-events?status=all&limit=200`);
  return new Map(
    (res.body.events as { id: string; title: string; weight: { mentionCount: number } }[]).map(
      (e) => [e.id, { title: e.title, n: e.weight.mentionCount }],
    ),
  );
}

const byQuestion = (records: readonly AnswerRecord[], question: string, repeat = 1) =>
  records.find((r) => r.question === question && r.repeat === repeat)!;

describe(`LoCoMo answer mode end to end against a fake model (${describeBackend()})`, () => {
  let server: FakeOpenAiServer;
  let report: LocomoEvalReport;
  let outDir: string;
  let before = new Map<string, { title: string; n: number }>();
  let after = new Map<string, { title: string; n: number }>();
  let threadBatches: Record<string, { batchId: string; status: string; verdict: string }[]> = {};
  let unresolvedAnswerThreads: string[] = [];

  beforeAll(async () => {
    server = await startFakeOpenAiServer();
    server.respondWith(scriptedAgent());
    outDir = await mkdtemp(join(tmpdir(), 'sg-locomo-answer-'));
    report = await runLocomoEval({
      data: [toy],
      ks: [1, 5],
      outDir,
      log: () => {},
      async afterIngest({ node, spaceId }) {
        before = await mentionCounts(node, spaceId);
      },
      answer: {
        agent: { baseUrl: server.baseUrl, model: 'agent-model', sleep: () => Promise.resolve() },
        judge: { baseUrl: server.baseUrl, model: 'judge-model', sleep: () => Promise.resolve() },
        rounds: 3,
        async afterAnswer({ node, spaceId, records }) {
          after = await mentionCounts(node, spaceId);
          for (const threadId of [...new Set(records.map((r) => r.threadId))]) {
            const all = await node.request(
              'GET',
              `/v1/spaces/${spaceId}/threads/${threadId}/batches?status=all`,
            );
            threadBatches[threadId] = all.body.batches;
            const open = await node.request(
              'GET',
              `/v1/spaces/${spaceId}/threads/${threadId}/batches?status=unresolved`,
            );
            if (open.body.batches.length > 0) unresolvedAnswerThreads.push(threadId);
          }
        },
      },
    });
    // A whole eval with three answer rounds: beside the full suite on two shared cores it can
    // outlast the default hook timeout.
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
    threadBatches = {};
    unresolvedAnswerThreads = [];
  });

  it('answers each scored question in each of 3 runs through recall, batches, assessment and adoption', () => {
    const answers = report.answer!.answers;
    expect(report.answer!.settings).toMatchObject({
      rounds: 3,
      repeats: 3,
      agentModel: 'agent-model',
      judgeModel: 'judge-model',
    });
    expect(answers).toHaveLength(6 * 3);
    expect(answers.every((r) => r.error === null)).toBe(true);
    const lisbon = byQuestion(answers, 'Lisbon marathon training?');
    expect(lisbon).toMatchObject({ answer: 'yes', uncertain: false, rounds: 1 });
    expect(lisbon.batches).toHaveLength(1);
    expect(lisbon.batches[0]).toMatchObject({
      tool: 'search_events',
      assessedBy: 'model',
      verdict: 'sufficient',
      incremented: 1,
    });
    expect(lisbon.batches[0]!.adoptedRefs).toEqual(lisbon.batches[0]!.evidenceRefs);
    // The recalled event was expanded (expand opens a batch holding event:<id>).
    const xylophone = byQuestion(answers, 'turquoise xylophone nephew');
    expect(xylophone.recall.events).toBeGreaterThan(0);
    expect(xylophone.batches.map((b) => [b.tool, b.verdict, b.incremented])).toEqual([
      ['expand_event', 'sufficient', 1],
    ]);
    // The photo's caption is an event of its own: event search finds the bowl at once.
    const bowl = byQuestion(answers, 'ceramic glaze bowl');
    expect(bowl.batches.map((b) => [b.tool, b.verdict, b.adoptedRefs.length])).toEqual([
      ['search_events', 'sufficient', 1],
    ]);
    expect(bowl.batches[0]!.adoptedRefs[0]).toMatch(/^event:/);
    expect(bowl.batches[0]!.incremented).toBe(1);
    expect(bowl.answer).toBe('a bowl');
    // Every opened batch was closed before the answer, on the server too.
    expect(answers.every((r) => r.unresolvedAfter.length === 0)).toBe(true);
    expect(unresolvedAnswerThreads).toEqual([]);
    for (const r of answers) {
      expect(threadBatches[r.threadId]!.map((b) => [b.batchId, b.status, b.verdict])).toEqual(
        r.batches.map((b) => [b.batchId, 'recorded', b.verdict]),
      );
    }
  });

  it('validates model output with zod: an unknown event id gets one corrective call', () => {
    const firstPlan = server.requests.find(
      (r) => roleOf(r.body as Sent) === 'plan' && (r.body as Sent).messages.length > 2,
    );
    expect(firstPlan).toBeDefined();
    expect((firstPlan!.body as Sent).messages.at(-1)!.content).toMatch(
      /event_id: no event id has been shown yet|event_id must be one of/,
    );
    const lisbon = byQuestion(report.answer!.answers, 'Lisbon marathon training?');
    expect(lisbon.tokens.calls).toBe(4); // plan ×2, assess, answer
  });

  it('reinforces exactly the adopted events, once per adoption', () => {
    // Two events mention the xylophone; which one recall shows first is the backend's order, so
    // each question's event is the one its answer adopted.
    const adoptedEvent = (question: string) => {
      const refs = byQuestion(report.answer!.answers, question).batches.flatMap(
        (b) => b.adoptedRefs,
      );
      expect(refs).toHaveLength(1);
      expect(refs[0]).toMatch(/^event:/);
      return refs[0]!.slice('event:'.length);
    };
    const marathon = adoptedEvent('Lisbon marathon training?');
    const xylophone = adoptedEvent('turquoise xylophone nephew');
    const photo = adoptedEvent('ceramic glaze bowl');
    expect(before.get(marathon)?.title).toMatch(/marathon/);
    expect(before.get(xylophone)?.title).toMatch(/xylophone/);
    expect(before.get(photo)).toBeDefined();
    const delta = Object.fromEntries(
      [...after].map(([id, e]) => [id, e.n - (before.get(id)?.n ?? 0)]),
    );
    const expected = Object.fromEntries([...after.keys()].map((id) => [id, 0]));
    expect(delta).toEqual({ ...expected, [marathon]: 3, [xylophone]: 3, [photo]: 3 });
    expect(report.answer!.reinforcement).toEqual([
      {
        sampleId: 'toy-1',
        expected: { [marathon]: 3, [xylophone]: 3, [photo]: 3 },
        observed: { [marathon]: 3, [xylophone]: 3, [photo]: 3 },
        ok: true,
      },
    ]);
  });

  it('states the uncertainty when the round budget ends without sufficient evidence', () => {
    const answers = report.answer!.answers;
    for (const q of [
      'bassoon orchestra cousin',
      'greyhound Biscuit adopted',
      'lighthouses shipwrecks novel',
    ]) {
      const r = byQuestion(answers, q);
      expect(r, q).toMatchObject({ uncertain: true, budgetExhausted: true, rounds: 3 });
      expect(r.answer).toBe(`${UNCERTAIN_PREFIX}unknown`);
      expect(r.batches.every((b) => b.verdict === 'partial' && b.adoptedRefs.length === 0)).toBe(
        true,
      );
    }
    expect(byQuestion(answers, 'greyhound Biscuit adopted').batches.map((b) => b.tool)).toEqual([
      'search_events',
      'expand_event',
      'search_raw',
    ]);
    const lastAssess = server.requests
      .map((r) => r.body as Sent)
      .filter(
        (b) =>
          roleOf(b) === 'assess' &&
          b.messages[1]!.content.startsWith('Question: bassoon orchestra cousin'),
      )
      .at(-1)!;
    expect(lastAssess.messages[0]!.content).toContain('No retrievals are left');
  });

  it('reports accuracy per category as mean ± sd over runs, tokens, latency and the gate', () => {
    const s = report.answer!.summary;
    expect(s.counts).toEqual({
      questions: 6,
      answers: 18,
      agentErrors: 0,
      judgeErrors: 0,
      uncertain: 9,
      budgetExhausted: 9,
    });
    const acc = s.accuracy;
    expect(acc.byCategory['1']!.perRepeat).toEqual([1, 0, 1]);
    expect(acc.byCategory['1']!.mean).toBeCloseTo(2 / 3, 12);
    expect(acc.byCategory['1']!.sd).toBeCloseTo(Math.sqrt(1 / 3), 12);
    expect(acc.byCategory['2']).toMatchObject({ n: 1, mean: 0, sd: 0 });
    expect(acc.byCategory['3']).toMatchObject({ n: 1, mean: 1, sd: 0 });
    expect(acc.byCategory['4']).toMatchObject({ n: 2, perRepeat: [0.5, 0.5, 0.5], mean: 0.5 });
    expect(acc.byCategory['5']).toMatchObject({ n: 1, mean: 1 });
    expect(acc['cat1-4'].perRepeat).toEqual([3 / 5, 2 / 5, 3 / 5]);
    expect(acc['cat1-4'].mean).toBeCloseTo(8 / 15, 12);
    expect(acc['cat1-5'].perRepeat).toEqual([4 / 6, 3 / 6, 4 / 6]);
    expect(acc['cat1-5'].sd).toBeCloseTo(Math.sqrt(1 / 3) / 6, 12);
    expect(acc['cat1-5']).toMatchObject({ n: 6, min: 0.5, max: 4 / 6 });

    // Agent calls per run: plan + one assessment per batch + answer (3+3+5+5+3+5 = 24), ×3,
    // plus the one corrective plan call; the judge: one call per answer.
    expect(s.tokens.agent).toEqual({
      prompt: 73 * 100,
      completion: 73 * 10,
      calls: 73,
      callsWithoutUsage: 0,
    });
    expect(s.tokens.judge).toEqual({
      prompt: 18 * 50,
      completion: 18 * 5,
      calls: 18,
      callsWithoutUsage: 0,
    });
    expect(server.requestCount).toBe(73 + 18);
    expect(s.tokens.perAnswer.judgePrompt).toBe(50);
    expect(s.latencyMs.answer.n).toBe(18);
    expect(s.latencyMs.answer.median).toBeGreaterThan(0);
    expect(s.latencyMs.answer.p95!).toBeGreaterThanOrEqual(s.latencyMs.answer.median!);

    expect(s.gate).toMatchObject({
      batches: 12 * 3,
      assessedByModel: 36,
      assessedByHarness: 0,
      verdicts: { sufficient: 9, partial: 27 },
      rejectedEvidenceRefs: 0,
      adoptions: 36,
      nonEmptyAdoptions: 9,
      adoptedRefs: 9,
      eventReinforcements: 9,
      unresolvedBeforeAnswer: 0,
      reinforcementCheck: 'ok',
    });
  });

  it('writes JSON and a markdown table beside the retrieval report', async () => {
    const json = JSON.parse(await readFile(join(outDir, 'locomo-answer.json'), 'utf8'));
    expect(json.summary.accuracy['cat1-5'].n).toBe(6);
    expect(json.answers).toHaveLength(18);
    const md = await readFile(join(outDir, 'locomo-answer.md'), 'utf8');
    expect(md).toBe(report.answer!.markdown);
    expect(md).toContain('| **1–5** | 6 | 61.1 | 9.6 | 50.0 | 66.7 | 66.7 | 50.0 | 66.7 |');
    expect(md).toContain('| 1 multi-hop | 1 | 66.7 | 57.7 | 0.0 | 100.0 | 100.0 | 0.0 | 100.0 |');
    expect(md).toContain('| judge | 900 | 90 | 18 | 0 | 50 | 5 |');
    expect(md).toContain('mention counts match the adoptions: ok');
    // The retrieval report is unchanged by answer mode.
    expect(await readFile(join(outDir, 'locomo.md'), 'utf8')).toBe(report.markdown);
  });
});

describe(`LoCoMo answer mode when evidence is never confirmed (${describeBackend()})`, () => {
  let server: FakeOpenAiServer;
  let report: LocomoEvalReport;
  let unchanged = false;

  beforeAll(async () => {
    server = await startFakeOpenAiServer();
    server.respondWith(neverFinds());
    let before = new Map<string, { title: string; n: number }>();
    report = await runLocomoEval({
      data: [toy],
      ks: [1],
      outDir: null,
      log: () => {},
      async afterIngest({ node, spaceId }) {
        before = await mentionCounts(node, spaceId);
      },
      answer: {
        agent: { baseUrl: server.baseUrl, model: 'm', sleep: () => Promise.resolve() },
        rounds: 2,
        repeats: 1,
        async afterAnswer({ node, spaceId }) {
          unchanged =
            JSON.stringify([...(await mentionCounts(node, spaceId))]) ===
            JSON.stringify([...before]);
        },
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('never unlocks an answer with refs outside the batch; every answer states the uncertainty', () => {
    const answers = report.answer!.answers;
    expect(answers).toHaveLength(6);
    for (const r of answers.filter((x) => x.error === null)) {
      expect(r, r.question).toMatchObject({ uncertain: true, budgetExhausted: true, rounds: 2 });
      expect(r.answer).toBe(`${UNCERTAIN_PREFIX}the memory does not say`);
      expect(r.batches).toHaveLength(2);
      for (const b of r.batches) {
        expect(b).toMatchObject({
          requestedVerdict: 'sufficient',
          verdict: 'partial',
          rejectedEvidenceRefs: 1,
          nextStrategy: 'search_events',
          adoptedRefs: [],
          incremented: 0,
        });
      }
      expect(r.batches.map((b) => b.tool)).toEqual(['search_raw', 'search_events']);
    }
    expect(unchanged).toBe(true);
    expect(report.answer!.summary.gate).toMatchObject({
      eventReinforcements: 0,
      adoptedRefs: 0,
      unresolvedBeforeAnswer: 0,
      reinforcementCheck: 'ok',
    });
  });

  it('closes the batch a failed model left open, and counts the failure as WRONG without a judge call', () => {
    const failed = byQuestion(report.answer!.answers, 'ceramic glaze bowl');
    expect(failed.error).toMatch(/ModelError: model request rejected: HTTP 400/);
    expect(failed.answer).toBe('');
    expect(failed.batches).toHaveLength(1);
    expect(failed.batches[0]).toMatchObject({
      assessedBy: 'harness',
      verdict: 'partial',
      adoptedRefs: [],
    });
    expect(failed.batches[0]!.receiptId).not.toBeNull();
    expect(failed.unresolvedAfter).toEqual([]);
    expect(failed.judge).toMatchObject({ verdict: 'WRONG', error: 'not judged' });
    const s = report.answer!.summary;
    expect(s.counts).toMatchObject({ answers: 6, agentErrors: 1, uncertain: 5 });
    expect(s.gate.assessedByHarness).toBe(1);
    // Only the adversarial question is CORRECT: the judge accepts its unconfirmed answer.
    expect(s.accuracy['cat1-5'].perRepeat).toEqual([1 / 6]);
    expect(s.accuracy.byCategory['5']!.mean).toBe(1);
    expect(s.accuracy.byCategory['3']!.mean).toBe(0);
    // Calls without usage are counted, and their tokens are not invented.
    expect(s.tokens.agent.prompt).toBe(0);
    expect(s.tokens.agent.callsWithoutUsage).toBe(s.tokens.agent.calls);
  });
});

describe('LoCoMo answer mode configuration', () => {
  it('refuses without a configured model, with a clear message', () => {
    expect(() => answerModelsFromEnv({})).toThrow(AnswerModeConfigError);
    expect(() => answerModelsFromEnv({})).toThrow(
      /--answer needs an OpenAI-compatible model: set STRATAGATE_MODEL_BASE_URL .* and STRATAGATE_MODEL_NAME/,
    );
    const env = {
      STRATAGATE_MODEL_BASE_URL: 'http://127.0.0.1:9/v1/',
      STRATAGATE_MODEL_NAME: 'agent',
    };
    expect(answerModelsFromEnv(env).judge.model).toBe('agent');
    const both = answerModelsFromEnv(env, 'judge');
    expect([both.agent.model, both.judge.model, both.judge.baseUrl]).toEqual([
      'agent',
      'judge',
      'http://127.0.0.1:9/v1',
    ]);
  });

  it('the CLI exits with that message before ingesting anything', async () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('STRATAGATE_MODEL_')),
    );
    const run = promisify(execFile);
    const error = await run(
      process.execPath,
      ['--import', 'tsx', 'eval/locomo/run.ts', '--data', 'no-such-file.json', '--answer'],
      { env, cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    ).catch((e: { code: number; stderr: string }) => e);
    expect(error).toMatchObject({ code: 2 });
    expect((error as { stderr: string }).stderr.trim()).toMatch(
      /^eval:locomo: --answer needs an OpenAI-compatible model/,
    );
  });

  it('rejects a bad round budget before starting a node', async () => {
    await expect(
      runLocomoEval({
        data: [toy],
        outDir: null,
        log: () => {},
        answer: { agent: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, rounds: 0 },
      }),
    ).rejects.toThrow(/--rounds: a positive integer expected, got 0/);
  });
});
