import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBackend } from '@stratagate/store/testing';
import {
  normaliseEvidence,
  parseSessionDate,
  sessionsOf,
  type LocomoSample,
} from '../eval/locomo/dataset.ts';
import { fuseScores, NEIGHBOUR_SHARE } from '@stratagate/domain';
import { runLocomoEval, TurnMap, type LocomoEvalReport } from '../eval/locomo/run.ts';

/**
 * A two-session toy conversation in the dataset's format. Every question's words occur only in
 * its evidence turns, so both rankers put exactly those turns first. Block size 6: session 1's
 * seventh turn (D1:7) stays in the open tail, which is neither sealed nor indexed.
 */
const SECRET = 'quetzalcoatlus'; // only in annotation fields
const ANSWER_ONLY = 'marzipan'; // only in a qa answer

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
    // An orphan date key without turns, as in conv-26.
    session_3_date_time: '4:04 pm on 20 January, 2024',
  },
  event_summary: { events_session_1: { Caroline: [`Caroline saw a ${SECRET}.`], date: '8 May' } },
  observation: { session_1_observation: { Melanie: [[`Melanie likes ${SECRET}.`, 'D1:2']] } },
  session_summary: { session_1_summary: `They talked about a ${SECRET}.` },
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
      answer: ANSWER_ONLY,
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

describe('LoCoMo dataset reading', () => {
  it('parses session dates strictly, as UTC', () => {
    expect(parseSessionDate('1:56 pm on 8 May, 2023').toISOString()).toBe(
      '2023-05-08T13:56:00.000Z',
    );
    expect(parseSessionDate('12:09 am on 13 September, 2023').toISOString()).toBe(
      '2023-09-13T00:09:00.000Z',
    );
    expect(parseSessionDate('12:30 pm on 1 January, 2024').toISOString()).toBe(
      '2024-01-01T12:30:00.000Z',
    );
    for (const bad of ['yesterday', '13:56 pm on 8 May, 2023', '1:56 pm on 31 June, 2023', '']) {
      expect(() => parseSessionDate(bad)).toThrow(/unparsable/);
    }
  });

  it('enumerates sessions with turns, times turns a minute apart, appends photo captions', () => {
    const sessions = sessionsOf(toy);
    expect(sessions.map((s) => s.threadId)).toEqual(['session-1', 'session-2']);
    expect(sessions[0]!.turns[2]).toMatchObject({
      diaId: 'D1:3',
      index: 3,
      speaker: 'Caroline',
      occurredAt: '2023-05-08T13:58:00.000Z',
    });
    expect(sessions[0]!.turns[5]!.content).toBe(
      'Look at this pottery I made. [shares a photo: a ceramic bowl with blue glaze]',
    );
  });

  it('normalises evidence quirks and drops unknown ids', () => {
    const known = new Set(['D8:6', 'D9:17', 'D11:26', 'D30:5', 'D1:1']);
    expect(normaliseEvidence(['D8:6; D9:17'], known)).toEqual({
      ids: ['D8:6', 'D9:17'],
      dropped: [],
    });
    expect(normaliseEvidence(['D8:6 D9:17', 'D8:6'], known).ids).toEqual(['D8:6', 'D9:17']);
    expect(normaliseEvidence(['D:11:26', 'D30:05'], known).ids).toEqual(['D11:26', 'D30:5']);
    expect(normaliseEvidence(['D', 'D2:2', 'D1:1'], known)).toEqual({
      ids: ['D1:1'],
      dropped: ['D', 'D2:2'],
    });
    expect(normaliseEvidence([], known)).toEqual({ ids: [], dropped: [] });
  });
});

describe(`LoCoMo eval end to end on a toy conversation (${describeBackend()})`, () => {
  let report: LocomoEvalReport;
  let outDir: string;
  const annotationProbe: Record<string, number> = {};
  let eventsJson = '';
  let sanityHits = 0;

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'sg-locomo-'));
    report = await runLocomoEval({
      data: [toy],
      ks: [1, 5],
      outDir,
      log: () => {},
      async afterIngest({ node, spaceId }) {
        const base = `/v1/spaces/${spaceId}`;
        for (const word of [SECRET, ANSWER_ONLY]) {
          for (const kind of ['raw', 'events'] as const) {
            const res = await node.request('POST', `${base}/threads/session-1/search/${kind}`, {
              query: word,
              limit: 20,
            });
            expect(res.status).toBe(200);
            annotationProbe[`${kind}:${word}`] = res.body.hits.length;
          }
        }
        const sanity = await node.request('POST', `${base}/threads/session-1/search/raw`, {
          query: 'xylophone',
          limit: 20,
        });
        sanityHits = sanity.body.hits.length;
        eventsJson = JSON.stringify(
          (await node.request('GET', `${base}/memory-events?status=all&limit=200`)).body,
        );
      },
    });
  });
  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('never ingests annotation fields or answers', () => {
    // D1:2 and D2:3 say it; D1:3 and D2:4 follow them and D1:1 and D2:2 precede them (the
    // messages on either side are indexed as context).
    expect(sanityHits).toBe(6);
    expect(annotationProbe).toEqual({
      [`raw:${SECRET}`]: 0,
      [`events:${SECRET}`]: 0,
      [`raw:${ANSWER_ONLY}`]: 0,
      [`events:${ANSWER_ONLY}`]: 0,
    });
    expect(eventsJson).toContain('xylophone');
    expect(eventsJson).not.toContain(SECRET);
    expect(eventsJson).not.toContain(ANSWER_ONLY);
  });

  it('counts turns, excluded questions and dropped evidence ids', () => {
    expect(report.counts).toEqual({
      conversations: 1,
      turnsIngested: 13,
      questions: 8,
      scored: 6,
      excludedNoEvidence: 2,
      excludedOtherCategory: 0,
      droppedEvidenceIds: 2, // "D9:9" and the bare "D"
    });
    const byQuestion = new Map(report.questions.map((q) => [q.question, q]));
    expect(byQuestion.get('turquoise xylophone nephew')!.gold).toEqual(['D1:2', 'D2:3']);
    expect(byQuestion.get('ceramic glaze bowl')!.gold).toEqual(['D1:6']);
    expect(byQuestion.get('greyhound Biscuit adopted')!.gold).toEqual(['D2:1']);
  });

  it('scores each question by hand-computable ranks', () => {
    const q = new Map(report.questions.map((x) => [x.question, x]));
    // A uniquely matched single evidence turn comes first in both rankers.
    for (const question of [
      'Lisbon marathon training?',
      'greyhound Biscuit adopted',
      'ceramic glaze bowl',
      'lighthouses shipwrecks novel',
    ]) {
      const r = q.get(question)!;
      expect(r.system[0], question).toBe(r.gold[0]);
      expect(r.baseline[0], question).toBe(r.gold[0]);
      expect(r.systemScore).toEqual({ recall: { 1: 1, 5: 1 }, hitAll: { 1: 1, 5: 1 } });
      expect(r.baselineScore).toEqual({ recall: { 1: 1, 5: 1 }, hitAll: { 1: 1, 5: 1 } });
    }
    // Each gold turn's rank in every ranking, 1-based, null where a list missed it.
    const greyhound = q.get('greyhound Biscuit adopted')!;
    expect(greyhound.ranks.fused).toEqual([1]);
    expect(greyhound.ranks.raw).toEqual([1]);
    expect(greyhound.ranks.bm25).toEqual([1]);
    expect(Object.keys(greyhound.ranks).sort()).toEqual([
      'bm25',
      'events',
      'fused',
      'graph',
      'raw',
    ]);
    expect(Object.keys(greyhound.listScores).sort()).toEqual(['events', 'graph', 'raw']);
    // Two gold turns, both matched: half at k=1, all at k=5.
    const two = q.get('turquoise xylophone nephew')!;
    for (const s of [two.systemScore, two.baselineScore]) {
      expect(s).toEqual({ recall: { 1: 0.5, 5: 1 }, hitAll: { 1: 0, 5: 1 } });
    }
    // D1:7 was session 1's open tail (7 turns, blocks of 6); closing the session sealed it.
    const tail = q.get('bassoon orchestra cousin')!;
    expect(tail.system[0]).toBe('D1:7');
    expect(tail.systemScore).toEqual({ recall: { 1: 1, 5: 1 }, hitAll: { 1: 1, 5: 1 } });
    expect(tail.baseline).toEqual(['D1:7']);
    expect(tail.baselineScore).toEqual({ recall: { 1: 1, 5: 1 }, hitAll: { 1: 1, 5: 1 } });
  });

  it('aggregates per category, for 1–4 and 1–5, with the system/baseline ratio', () => {
    const all = report.overall['cat1-5'];
    expect(all.n).toBe(6);
    expect(all.system.recall[5]).toBe(1);
    expect(all.baseline.recall[5]).toBe(1);
    expect(all.ratio.recall[5]).toBe(1);
    expect(all.system.recall[1]).toBeCloseTo((5 + 0.5) / 6, 12);
    expect(all.system.hitAll[1]).toBeCloseTo(5 / 6, 12);
    const oneToFour = report.overall['cat1-4'];
    expect(oneToFour.n).toBe(5);
    expect(oneToFour.system.recall[1]).toBeCloseTo((4 + 0.5) / 5, 12);
    expect(oneToFour.baseline.hitAll[5]).toBe(1);
    const single = report.overall.byCategory['4']!;
    expect(single.n).toBe(2);
    expect(single.system.recall[5]).toBe(1);
    expect(single.ratio.hitAll[5]).toBe(1);
    expect(report.overall.byCategory['5']!.n).toBe(1);
    expect(report.conversations).toHaveLength(1);
    expect(report.conversations[0]!['cat1-5']).toEqual(all);
  });

  it('writes JSON and a markdown table', async () => {
    const json = JSON.parse(await readFile(join(outDir, 'locomo.json'), 'utf8'));
    expect(json.overall['cat1-5'].n).toBe(6);
    const md = await readFile(join(outDir, 'locomo.md'), 'utf8');
    expect(md).toBe(report.markdown);
    expect(md).toContain('| **1–5** | 6 | 91.7 | 91.7 | 1.00× | 100.0 | 100.0 | 1.00× |');
  });

  it('keeps each list’s scored hits per question and the space’s memory with its cited turns', async () => {
    const map = new TurnMap(sessionsOf(toy));
    for (const q of report.questions) {
      // The fused ranking is rebuilt from the kept hits by the system's own fusion.
      const rebuilt = fuseScores(
        [q.hits.events, q.hits.raw, q.hits.graph].map((hits) => ({ hits, weight: 1 })),
        { neighbours: (turn) => map.neighbours(turn), neighbourShare: NEIGHBOUR_SHARE },
      ).map((f) => f.id);
      expect(rebuilt.slice(0, q.system.length)).toEqual(q.system);
    }
    const memory = JSON.parse(
      await readFile(join(outDir, `memory-${report.conversations[0]!.sampleId}.json`), 'utf8'),
    ) as { event: { id: string }; turns: string[] }[];
    expect(memory).toHaveLength(report.memory[0]!.events);
    const turnIds = new Set(sessionsOf(toy).flatMap((s) => s.turns.map((t) => t.diaId)));
    expect(memory.length).toBeGreaterThan(0);
    for (const m of memory) {
      expect(m.turns.length).toBeGreaterThan(0);
      for (const turn of m.turns) expect(turnIds).toContain(turn);
    }
  });
});
