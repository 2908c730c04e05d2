/**
 * `npm run eval:locomo -- --data <file> [--k 5,10,25] [--out <dir>] [--limit-conversations N]`
 * `  [--answer [--repeats 3] [--rounds 4] [--judge-model <name>] [--limit-questions N]]`
 *
 * Turn-level retrieval on LoCoMo through the real system: all four roles in this process
 * (test/harness.ts wiring; in-memory PGlite, or a fresh database on DATABASE_URL) with the offline
 * provider (startTestNode reads no model settings from the environment). Each sample becomes a space, each session a
 * thread, each dataset turn one ingested turn; after consolidation settles, every question is
 * asked of event, raw and graph search, each mapped to source turns and fused by `fuseScores`
 * (ADR 0040), the system's own fusion. A plain BM25 over the same turns is scored in the same
 * run. With `--answer` (a model configured with
 * STRATAGATE_MODEL_*), the scored questions are also answered by an agent through the evidence
 * gate and graded by an LLM judge (answer-mode.ts), reported beside the retrieval report.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { NotFoundError, type OperationOutput } from '@stratagate/client';
import { fuseScores, NEIGHBOUR_SHARE, type ScoredHit } from '@stratagate/domain';
import { startTestNode, type TestNode } from '../../test/harness.ts';
import {
  AnswerModeConfigError,
  answerModelsFromEnv,
  createAnswerMode,
  type AnswerModeOptions,
  type AnswerReport,
} from './answer-mode.ts';
import {
  normaliseEvidence,
  sessionsOf,
  type LocomoQa,
  type LocomoSample,
  type LocomoSession,
  type LocomoTurn,
} from './dataset.ts';
import {
  aggregate,
  scoreQuestion,
  TurnBm25,
  type Aggregate,
  type QuestionScore,
} from './scoring.ts';

/** Fixed settings of the run (not tuned to the data). */
export const EVAL_SETTINGS = {
  blockSize: 6,
  eventSearchLimit: 20,
  /** The brief asks for 25; the search/raw route caps `limit` at 20. */
  rawSearchLimit: 20,
  rawSearchScope: 'space',
  graphSearchLimit: 20,
  /**
   * Every list's hits map to the turns they cite (an event its sources, a graph node its
   * provenance events' sources, a raw hit its message) and are fused per turn by their
   * max-normalised scores (ADR 0040), each list at weight 1; a turn's neighbours in its session
   * get `neighbourShare` of its score.
   */
  fusion: 'max-normalised CombSUM of BM25 scores per turn (fuseScores)',
  listWeights: { events: 1, raw: 1, graph: 1 },
  neighbourShare: NEIGHBOUR_SHARE,
  baseline:
    'BM25 over turn content (text + photo caption), k1 1.2, b 0.75, tokenize() of @stratagate/domain (words, no stems, no stop words)',
  timeOfTurn: 'session date (UTC) + turn index minutes',
  analyzeAfterSettle: true,
  /** Each session is a thread; the host closes it when the session ends (its tail is sealed). */
  closeSessions: true,
} as const;

export const CATEGORIES = [1, 2, 3, 4, 5] as const;

export interface LocomoEvalOptions {
  /** Path of a LoCoMo JSON file, or the samples themselves. */
  data: string | LocomoSample[];
  ks?: number[];
  /** Directory for locomo.json and locomo.md; null writes nothing. Default eval/out. */
  outDir?: string | null;
  limitConversations?: number;
  /** Progress lines; default stderr. */
  log?: (line: string) => void;
  /** Called after a sample is ingested and settled, before its questions (tests look inside). */
  afterIngest?: (ctx: { node: TestNode; spaceId: string; sample: LocomoSample }) => Promise<void>;
  /** Answer mode: agent + judge over the scored questions; writes locomo-answer.{json,md}. */
  answer?: AnswerModeOptions;
}

export interface SystemVsBaseline {
  n: number;
  system: Aggregate;
  baseline: Aggregate;
  /** system / baseline per k; null when the baseline is 0 or there are no questions. */
  ratio: { recall: Record<number, number | null>; hitAll: Record<number, number | null> };
}

export interface Breakdown {
  byCategory: Record<string, SystemVsBaseline>;
  'cat1-4': SystemVsBaseline;
  'cat1-5': SystemVsBaseline;
}

export interface QuestionResult {
  sampleId: string;
  category: number;
  question: string;
  evidence: string[];
  gold: string[];
  droppedEvidence: string[];
  system: string[];
  baseline: string[];
  systemScore: QuestionScore;
  baselineScore: QuestionScore;
  /** Each list of the system alone: event search's cited turns, raw search's, graph search's. */
  listScores: Record<SearchList, QuestionScore>;
  /** Per gold turn (in `gold`'s order), its 1-based rank in each ranking, null when absent. */
  ranks: Record<SearchList | 'fused' | 'bm25', (number | null)[]>;
  /** Each list's hits as fused: the turns a hit stands for and its score (ADR 0040). */
  hits: Record<SearchList, ScoredHit[]>;
}

export const SEARCH_LISTS = ['events', 'raw', 'graph'] as const;
export type SearchList = (typeof SEARCH_LISTS)[number];

export interface ConversationReport extends Breakdown {
  sampleId: string;
  spaceId: string;
  sessions: number;
  turns: number;
  questions: number;
  excludedNoEvidence: number;
  seconds: { ingest: number; settle: number; questions: number };
}

export interface LocomoEvalReport {
  dataset: string;
  generatedAt: string;
  ks: number[];
  settings: typeof EVAL_SETTINGS;
  backend: string;
  counts: {
    conversations: number;
    turnsIngested: number;
    questions: number;
    scored: number;
    excludedNoEvidence: number;
    excludedOtherCategory: number;
    droppedEvidenceIds: number;
  };
  seconds: number;
  overall: Breakdown;
  /** Recall@k and hit_all@k of each list alone over categories 1–5. */
  lists: Record<SearchList, Aggregate>;
  /** Memory events and graph records built per conversation. */
  memory: {
    sampleId: string;
    events: number;
    graphNodes: number;
    facts: number;
    edges: number;
    /** The topic directory: chapters, events in none (fallbacks), its size in recall. */
    topics: {
      chapters: number;
      fallbacks: number;
      coverage: number;
      directoryTokens: number;
      form: string;
    };
  }[];
  conversations: ConversationReport[];
  questions: QuestionResult[];
  markdown: string;
  answer?: AnswerReport;
}

type Hit = OperationOutput<'searchRawMessages'>['hits'][number];

/** Waits until the log is projected and no derivation job is pending (like TestNode.settle). */
async function settle(t: TestNode, spaceId: string, timeoutMs = 15 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A space whose first records are not projected yet is not found: wait for it too.
    const s = await t.client.call('getSpaceStatus', { spaceId }).catch((error: unknown) => {
      if (error instanceof NotFoundError && error.code === 'space_not_found') return null;
      throw error;
    });
    const done =
      s !== null &&
      s.projectedPosition >= s.logPosition &&
      s.summaryJobs.pending === 0 &&
      s.extractionJobs.pending === 0 &&
      s.graphJobs.pending === 0 &&
      s.blocks.pending === s.summaryJobs.failed &&
      // The topic directory is built after the graph; its figures are part of the report.
      s.topicJobs.status !== 'due';
    if (done) return;
    if (Date.now() > deadline) {
      throw new Error(`space ${spaceId} did not settle: ${JSON.stringify(s)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const cut = (text: string, max: number) => Array.from(text).slice(0, max).join('');

/** Maps system hits back to dataset turns: (threadId, threadTurn) ↔ (session N, turn index). */
export class TurnMap {
  private readonly byThreadTurn = new Map<string, LocomoTurn>();
  private readonly byMessage = new Map<string, string>();
  private readonly byDiaId = new Map<string, { threadId: string; index: number }>();
  /** Memory events' source turns, read once per event. */
  readonly eventTurns = new Map<string, string[]>();

  constructor(sessions: readonly LocomoSession[]) {
    for (const s of sessions) {
      for (const t of s.turns) {
        this.byThreadTurn.set(`${s.threadId}#${t.index}`, t);
        this.byDiaId.set(t.diaId, { threadId: s.threadId, index: t.index });
      }
    }
  }

  turnAt(threadId: string, threadTurn: number): LocomoTurn {
    const t = this.byThreadTurn.get(`${threadId}#${threadTurn}`);
    if (!t) throw new Error(`no dataset turn for ${threadId} turn ${threadTurn}`);
    return t;
  }

  /** A raw hit's turn: the block's first turn + the message's index in the block (one per turn). */
  rawHit(hit: Hit): string {
    const known = this.byMessage.get(hit.message.messageId);
    if (known) return known;
    const index = Number(hit.ref.split(':').at(-1));
    const turn = this.turnAt(hit.threadId, hit.turnRange[0]! + index);
    if (cut(turn.content, 500) !== hit.message.content) {
      throw new Error(`raw hit ${hit.ref} does not match ${turn.diaId}: ${hit.message.content}`);
    }
    this.byMessage.set(hit.message.messageId, turn.diaId);
    return turn.diaId;
  }

  message(messageId: string): string | undefined {
    return this.byMessage.get(messageId);
  }

  /** A turn's neighbours in its session (thread turn ± 1): what the system knows of adjacency. */
  neighbours(diaId: string): string[] {
    const turn = this.byDiaId.get(diaId);
    if (!turn) return [];
    return [turn.index - 1, turn.index + 1].flatMap((i) => {
      const t = this.byThreadTurn.get(`${turn.threadId}#${i}`);
      return t ? [t.diaId] : [];
    });
  }

  learn(messageId: string, diaId: string) {
    this.byMessage.set(messageId, diaId);
  }
}

/** The turns a memory event cites, from its detail (read once per event). */
async function eventTurns(
  t: TestNode,
  spaceId: string,
  map: TurnMap,
  id: string,
): Promise<string[]> {
  const known = map.eventTurns.get(id);
  if (known) return known;
  const detail = await t.client.call('getMemoryEvent', { spaceId, eventId: id });
  const turns: string[] = [];
  for (const s of detail.sources) {
    const diaId = map.turnAt(s.threadId, s.threadTurn).diaId;
    map.learn(s.messageId, diaId);
    if (!turns.includes(diaId)) turns.push(diaId);
  }
  map.eventTurns.set(id, turns);
  return turns;
}

const turnsOf = (hits: readonly ScoredHit[], limit: number) =>
  [...new Set(hits.flatMap((h) => h.units))].slice(0, limit);

async function systemRanking(
  t: TestNode,
  spaceId: string,
  threadId: string,
  query: string,
  map: TurnMap,
  limit: number,
): Promise<{
  fused: string[];
  lists: Record<SearchList, string[]>;
  hits: Record<SearchList, ScoredHit[]>;
}> {
  const where = { spaceId, threadId };
  const [events, raw, graph] = await Promise.all([
    t.client.call('searchEvents', {
      ...where,
      body: { query, limit: EVAL_SETTINGS.eventSearchLimit },
    }),
    t.client.call('searchRawMessages', {
      ...where,
      body: {
        query,
        limit: EVAL_SETTINGS.rawSearchLimit,
        scope: EVAL_SETTINGS.rawSearchScope,
      },
    }),
    t.client.call('searchGraph', {
      ...where,
      body: { query, limit: EVAL_SETTINGS.graphSearchLimit },
    }),
  ]);
  const eventHits: ScoredHit[] = [];
  for (const hit of events.hits) {
    eventHits.push({ units: await eventTurns(t, spaceId, map, hit.id), score: hit.rankScore });
  }
  const rawHits: ScoredHit[] = raw.hits.map((hit) => ({
    units: [map.rawHit(hit)],
    score: hit.rankScore,
  }));
  const graphHits: ScoredHit[] = [];
  for (const hit of graph.hits) {
    const units: string[] = [];
    for (const id of hit.provenanceEventIds) {
      units.push(...(await eventTurns(t, spaceId, map, id)));
    }
    graphHits.push({ units: [...new Set(units)], score: hit.rankScore });
  }
  const weights = EVAL_SETTINGS.listWeights;
  const fused = fuseScores(
    [
      { hits: eventHits, weight: weights.events },
      { hits: rawHits, weight: weights.raw },
      { hits: graphHits, weight: weights.graph },
    ],
    { neighbours: (turn) => map.neighbours(turn), neighbourShare: EVAL_SETTINGS.neighbourShare },
  )
    .map((f) => f.id)
    .slice(0, limit);
  return {
    fused,
    lists: {
      events: turnsOf(eventHits, limit),
      raw: turnsOf(rawHits, limit),
      graph: turnsOf(graphHits, limit),
    },
    hits: { events: eventHits, raw: rawHits, graph: graphHits },
  };
}

/** 1-based ranks of each gold turn in `ranked`, null when absent. */
const ranksOf = (gold: readonly string[], ranked: readonly string[]) =>
  gold.map((g) => {
    const i = ranked.indexOf(g);
    return i < 0 ? null : i + 1;
  });

function compare(results: readonly QuestionResult[], ks: readonly number[]): SystemVsBaseline {
  const system = aggregate(
    results.map((r) => r.systemScore),
    ks,
  );
  const baseline = aggregate(
    results.map((r) => r.baselineScore),
    ks,
  );
  const ratio = {
    recall: {} as Record<number, number | null>,
    hitAll: {} as Record<number, number | null>,
  };
  for (const k of ks) {
    const div = (a: number | null, b: number | null) => (a === null || !b ? null : a / b);
    ratio.recall[k] = div(system.recall[k]!, baseline.recall[k]!);
    ratio.hitAll[k] = div(system.hitAll[k]!, baseline.hitAll[k]!);
  }
  return { n: results.length, system, baseline, ratio };
}

function breakdown(results: readonly QuestionResult[], ks: readonly number[]): Breakdown {
  const byCategory: Record<string, SystemVsBaseline> = {};
  for (const c of CATEGORIES) {
    byCategory[String(c)] = compare(
      results.filter((r) => r.category === c),
      ks,
    );
  }
  return {
    byCategory,
    'cat1-4': compare(
      results.filter((r) => r.category >= 1 && r.category <= 4),
      ks,
    ),
    'cat1-5': compare(results, ks),
  };
}

const pct = (x: number | null | undefined) =>
  x === null || x === undefined ? 'n/a' : (x * 100).toFixed(1);
const times = (x: number | null | undefined) =>
  x === null || x === undefined ? 'n/a' : `${x.toFixed(2)}×`;

function table(
  rows: { label: string; c: SystemVsBaseline }[],
  ks: readonly number[],
  metric: 'recall' | 'hitAll',
): string[] {
  const name = metric === 'recall' ? 'R' : 'HitAll';
  const head = [
    '',
    'n',
    ...ks.flatMap((k) => [`system ${name}@${k}`, `BM25 ${name}@${k}`, 'ratio']),
  ];
  return [
    `| ${head.join(' | ')} |`,
    `| --- | ---: | ${ks.map(() => '---: | ---: | ---:').join(' | ')} |`,
    ...rows.map(
      ({ label, c }) =>
        `| ${label} | ${c.n} | ${ks
          .map((k) =>
            [pct(c.system[metric][k]), pct(c.baseline[metric][k]), times(c.ratio[metric][k])].join(
              ' | ',
            ),
          )
          .join(' | ')} |`,
    ),
  ];
}

const CATEGORY_NAMES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

function markdown(report: Omit<LocomoEvalReport, 'markdown'>): string {
  const { ks, overall } = report;
  const rows = (b: Breakdown) => [
    ...CATEGORIES.map((c) => ({ label: `${c} ${CATEGORY_NAMES[c]}`, c: b.byCategory[String(c)]! })),
    { label: '**1–4**', c: b['cat1-4'] },
    { label: '**1–5**', c: b['cat1-5'] },
  ];
  const perConv = report.conversations.flatMap((c) => [
    { label: `${c.sampleId} 1–5`, c: c['cat1-5'] },
    { label: `${c.sampleId} 1–4`, c: c['cat1-4'] },
  ]);
  const s = report.settings;
  return [
    `# LoCoMo retrieval: ${report.dataset}`,
    '',
    `${report.counts.conversations} conversations, ${report.counts.turnsIngested} turns ingested, ${report.counts.scored} questions scored ` +
      `(${report.counts.excludedNoEvidence} without valid evidence excluded, ${report.counts.droppedEvidenceIds} evidence ids dropped), ` +
      `${report.seconds.toFixed(1)} s on ${report.backend}.`,
    `System: event search (limit ${s.eventSearchLimit}, hits → cited turns), raw search (limit ${s.rawSearchLimit}, scope ${s.rawSearchScope}) and graph search (limit ${s.graphSearchLimit}, hits → provenance events' turns) ` +
      `fused per turn by ${s.fusion}, weights events ${s.listWeights.events} : raw ${s.listWeights.raw} : graph ${s.listWeights.graph}, neighbours in the session ${s.neighbourShare}; sessions closed at their end: ${s.closeSessions}; block size ${s.blockSize}` +
      `${s.analyzeAfterSettle ? '; ANALYZE after each sample settles (PGlite has no autovacuum)' : ''}. Baseline: ${s.baseline}.`,
    'Recall@k in paper scoring (fraction of gold turns in the top k, averaged over questions), in %.',
    '',
    '## Recall@k, all conversations',
    '',
    ...table(rows(overall), ks, 'recall'),
    '',
    '## hit_all@k, all conversations',
    '',
    ...table(rows(overall), ks, 'hitAll'),
    '',
    '## Each list alone, categories 1–5',
    '',
    `| list | ${ks.map((k) => `R@${k} | hit_all@${k}`).join(' | ')} |`,
    `| --- | ${ks.map(() => '---: | ---:').join(' | ')} |`,
    ...SEARCH_LISTS.map(
      (l) =>
        `| ${l} search alone | ${ks
          .map((k) => `${pct(report.lists[l].recall[k])} | ${pct(report.lists[l].hitAll[k])}`)
          .join(' | ')} |`,
    ),
    `| BM25 baseline | ${ks
      .map(
        (k) =>
          `${pct(overall['cat1-5'].baseline.recall[k])} | ${pct(overall['cat1-5'].baseline.hitAll[k])}`,
      )
      .join(' | ')} |`,
    '',
    '## Memory built per conversation',
    '',
    '| conversation | events | graph nodes | facts | edges | topic chapters | events in a chapter | directory in recall |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...report.memory.map(
      (m) =>
        `| ${m.sampleId} | ${m.events} | ${m.graphNodes} | ${m.facts} | ${m.edges} | ${m.topics.chapters} | ${pct(m.topics.coverage)} | ${m.topics.directoryTokens} tokens (${m.topics.form}) |`,
    ),
    '',
    '## Recall@k per conversation',
    '',
    ...table(perConv, ks, 'recall'),
    '',
  ].join('\n');
}

async function loadSamples(data: string | LocomoSample[]): Promise<LocomoSample[]> {
  if (typeof data !== 'string') return data;
  const parsed = JSON.parse(await readFile(data, 'utf8')) as unknown;
  if (!Array.isArray(parsed)) throw new Error(`${data}: expected a JSON array of samples`);
  return parsed as LocomoSample[];
}

export async function runLocomoEval(options: LocomoEvalOptions): Promise<LocomoEvalReport> {
  const started = performance.now();
  const ks = [...(options.ks ?? [5, 10, 25])].sort((a, b) => a - b);
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1)) {
    throw new Error(`--k: positive integers expected, got ${ks.join(',')}`);
  }
  const maxK = ks.at(-1)!;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let samples = await loadSamples(options.data);
  const limit = options.limitConversations;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
    throw new Error(`--limit-conversations: a positive integer expected, got ${limit}`);
  }
  if (limit !== undefined) samples = samples.slice(0, limit);

  // Before any ingest: bad answer-mode settings fail at once.
  const answerMode = options.answer ? createAnswerMode(options.answer, log) : null;
  const t = await startTestNode('locomo_eval');
  const questions: QuestionResult[] = [];
  const conversations: ConversationReport[] = [];
  let turnsIngested = 0;
  let excludedNoEvidence = 0;
  let excludedOtherCategory = 0;
  let droppedEvidenceIds = 0;
  const memory: LocomoEvalReport['memory'] = [];
  const outDir = options.outDir === undefined ? 'eval/out' : options.outDir;
  try {
    for (const [ci, sample] of samples.entries()) {
      const tag = `[locomo ${ci + 1}/${samples.length} ${sample.sample_id}]`;
      const spaceId = `locomo-${sample.sample_id}`;
      const sessions = sessionsOf(sample);
      const turns = sessions.flatMap((s) => s.turns);
      await t.client.call('configureSpace', {
        spaceId,
        body: { blockSize: EVAL_SETTINGS.blockSize },
      });

      const t0 = performance.now();
      let done = 0;
      for (const session of sessions) {
        for (const turn of session.turns) {
          const recorded = await t.client.call('recordTurn', {
            spaceId,
            body: {
              turnId: turn.diaId,
              threadId: session.threadId,
              occurredAt: turn.occurredAt,
              messages: [{ role: 'user', name: turn.speaker, content: turn.content }],
            },
          });
          if (recorded.threadTurn !== turn.index) {
            throw new Error(
              `turn ${turn.diaId} became thread turn ${recorded.threadTurn}, expected ${turn.index}`,
            );
          }
          done++;
          if (done % 100 === 0) log(`${tag} ingested ${done}/${turns.length} turns`);
        }
        if (EVAL_SETTINGS.closeSessions) {
          await t.client.call('closeThread', { spaceId, threadId: session.threadId });
        }
      }
      turnsIngested += done;
      log(`${tag} ingested ${done}/${turns.length} turns in ${sessions.length} sessions; settling`);
      const t1 = performance.now();
      await settle(t, spaceId);
      const t2 = performance.now();
      // PGlite runs no autovacuum, so its planner never gets table statistics: the raw-search
      // route's per-hit block query then runs as a nested loop, O(turns²) per hit (~45 ms per hit
      // at 370 turns). A Postgres server auto-analyzes tables this size on its own; ANALYZE here
      // does the same. It changes plans only, never results (every ranking has a total order).
      if (EVAL_SETTINGS.analyzeAfterSettle) await sql`analyze`.execute(t.node.database.db);
      log(`${tag} settled in ${((t2 - t1) / 1000).toFixed(1)} s`);
      if (options.afterIngest) await options.afterIngest({ node: t, spaceId, sample });
      memory.push({
        sampleId: sample.sample_id,
        ...(await memoryCounts(t, spaceId)),
        topics: await topicCounts(t, spaceId, sessions[0]!.threadId, sample.qa[0]?.question ?? ''),
      });
      log(`${tag} memory ${JSON.stringify(memory.at(-1))}`);

      const known = new Set(turns.map((x) => x.diaId));
      const map = new TurnMap(sessions);
      const bm25 = new TurnBm25(turns);
      const threadId = sessions[0]?.threadId ?? 'session-1';
      const mine: QuestionResult[] = [];
      const scoredQa: { index: number; qa: LocomoQa }[] = [];
      let excludedHere = 0;
      for (const [qi, qa] of sample.qa.entries()) {
        if (!CATEGORIES.includes(qa.category as (typeof CATEGORIES)[number])) {
          excludedOtherCategory++;
          continue;
        }
        const evidence = normaliseEvidence(qa.evidence ?? [], known);
        droppedEvidenceIds += evidence.dropped.length;
        if (evidence.ids.length === 0) {
          excludedHere++;
          continue;
        }
        const {
          fused: system,
          lists,
          hits,
        } = await systemRanking(t, spaceId, threadId, qa.question, map, maxK);
        const baseline = bm25.rank(qa.question, maxK);
        mine.push({
          sampleId: sample.sample_id,
          category: qa.category,
          question: qa.question,
          evidence: qa.evidence.map(String),
          gold: evidence.ids,
          droppedEvidence: evidence.dropped,
          system,
          baseline,
          systemScore: scoreQuestion(evidence.ids, system, ks),
          baselineScore: scoreQuestion(evidence.ids, baseline, ks),
          listScores: {
            events: scoreQuestion(evidence.ids, lists.events, ks),
            raw: scoreQuestion(evidence.ids, lists.raw, ks),
            graph: scoreQuestion(evidence.ids, lists.graph, ks),
          },
          ranks: {
            fused: ranksOf(evidence.ids, system),
            events: ranksOf(evidence.ids, lists.events),
            raw: ranksOf(evidence.ids, lists.raw),
            graph: ranksOf(evidence.ids, lists.graph),
            bm25: ranksOf(evidence.ids, baseline),
          },
          hits,
        });
        scoredQa.push({ index: qi, qa });
        if ((qi + 1) % 50 === 0) log(`${tag} questions ${qi + 1}/${sample.qa.length}`);
      }
      const t3 = performance.now();
      if (outDir !== null) {
        await mkdir(outDir, { recursive: true });
        await dumpMemory(t, spaceId, map, resolve(outDir, `memory-${sample.sample_id}.json`));
      }
      excludedNoEvidence += excludedHere;
      questions.push(...mine);
      conversations.push({
        sampleId: sample.sample_id,
        spaceId,
        sessions: sessions.length,
        turns: turns.length,
        questions: mine.length,
        excludedNoEvidence: excludedHere,
        seconds: {
          ingest: round((t1 - t0) / 1000),
          settle: round((t2 - t1) / 1000),
          questions: round((t3 - t2) / 1000),
        },
        ...breakdown(mine, ks),
      });
      const c = conversations.at(-1)!['cat1-5'];
      log(
        `${tag} ${mine.length} questions in ${((t3 - t2) / 1000).toFixed(1)} s; ` +
          `R@${ks[0]} system ${pct(c.system.recall[ks[0]!])} vs BM25 ${pct(c.baseline.recall[ks[0]!])}`,
      );
      if (answerMode) {
        await answerMode.runSample({
          node: t,
          spaceId,
          sample,
          questions: scoredQa,
          settle: () => settle(t, spaceId),
          tag,
        });
      }
    }
  } finally {
    await t.stop();
  }

  const partial: Omit<LocomoEvalReport, 'markdown'> = {
    dataset: typeof options.data === 'string' ? basename(options.data) : '(in memory)',
    generatedAt: new Date().toISOString(),
    ks,
    settings: EVAL_SETTINGS,
    backend: process.env.DATABASE_URL ? 'Postgres (DATABASE_URL)' : 'in-memory PGlite',
    counts: {
      conversations: conversations.length,
      turnsIngested,
      questions: questions.length + excludedNoEvidence + excludedOtherCategory,
      scored: questions.length,
      excludedNoEvidence,
      excludedOtherCategory,
      droppedEvidenceIds,
    },
    // Retrieval only: answer mode reports its own time.
    seconds: round((performance.now() - started) / 1000 - (answerMode?.seconds() ?? 0)),
    overall: breakdown(questions, ks),
    lists: Object.fromEntries(
      SEARCH_LISTS.map((l) => [
        l,
        aggregate(
          questions.map((q) => q.listScores[l]),
          ks,
        ),
      ]),
    ) as Record<SearchList, Aggregate>,
    memory,
    conversations,
    questions,
  };
  const report: LocomoEvalReport = {
    ...partial,
    markdown: markdown(partial),
    ...(answerMode
      ? { answer: answerMode.finish({ dataset: partial.dataset, backend: partial.backend }) }
      : {}),
  };
  if (outDir !== null) {
    await mkdir(outDir, { recursive: true });
    const { answer: _answer, ...retrieval } = report;
    await writeFile(resolve(outDir, 'locomo.json'), `${JSON.stringify(retrieval, null, 2)}\n`);
    await writeFile(resolve(outDir, 'locomo.md'), report.markdown);
    log(`[locomo] wrote ${resolve(outDir, 'locomo.json')} and locomo.md`);
    if (report.answer) {
      await writeFile(
        resolve(outDir, 'locomo-answer.json'),
        `${JSON.stringify(report.answer, null, 2)}\n`,
      );
      await writeFile(resolve(outDir, 'locomo-answer.md'), report.answer.markdown);
      log(`[locomo] wrote ${resolve(outDir, 'locomo-answer.json')} and locomo-answer.md`);
    }
  }
  return report;
}

const round = (x: number) => Math.round(x * 100) / 100;

/**
 * The directory MM-TOP builds: chapters, fallbacks (events in no chapter), coverage (the share of
 * events in a chapter) and the directory's size in one recall.
 */
async function topicCounts(t: TestNode, spaceId: string, threadId: string, message: string) {
  let chapters = 0;
  let fallbacks = 0;
  let inChapters = 0;
  for (let offset: number | null = 0; offset !== null;) {
    const page: OperationOutput<'listTopics'> = await t.client.call('listTopics', {
      spaceId,
      limit: 20,
      offset,
    });
    for (const topic of page.topics) {
      if (topic.isFallback) fallbacks += 1;
      else {
        chapters += 1;
        inChapters += topic.sourceEventCount;
      }
    }
    offset = page.nextOffset;
  }
  const recalled = await t.client.call('recall', { spaceId, threadId, body: { message } });
  return {
    chapters,
    fallbacks,
    coverage: inChapters + fallbacks === 0 ? 0 : round(inChapters / (inChapters + fallbacks)),
    directoryTokens: recalled.directory.usedTokens,
    form: recalled.directory.form,
  };
}

/**
 * Every memory event of the space as listed, with the turns it cites: what event search ranked,
 * so a change to ranking alone can be judged on the same memory without ingesting again.
 */
async function dumpMemory(t: TestNode, spaceId: string, map: TurnMap, path: string) {
  const events: { event: unknown; turns: string[] }[] = [];
  for (let offset: number | null = 0; offset !== null;) {
    const page: OperationOutput<'listMemoryEvents'> = await t.client.call('listMemoryEvents', {
      spaceId,
      limit: 200,
      offset,
    });
    for (const event of page.events) {
      events.push({ event, turns: await eventTurns(t, spaceId, map, event.id) });
    }
    offset = page.nextOffset;
  }
  await writeFile(path, `${JSON.stringify(events)}\n`);
}

/** Events (active and superseded) and the graph's visible nodes, current facts and edges. */
async function memoryCounts(t: TestNode, spaceId: string) {
  let events = 0;
  for (let offset: number | null = 0; offset !== null;) {
    const page: OperationOutput<'listMemoryEvents'> = await t.client.call('listMemoryEvents', {
      spaceId,
      limit: 200,
      offset,
    });
    events += page.events.length;
    offset = page.nextOffset;
  }
  let graphNodes = 0;
  let facts = 0;
  const edges = new Set<string>();
  for (let offset = 0; ; offset += 100) {
    const { nodes } = await t.client.call('listGraphNodes', { spaceId, limit: 100, offset });
    graphNodes += nodes.length;
    for (const n of nodes) {
      facts += n.currentFacts.length;
      for (const e of n.currentEdges) edges.add(e.id);
    }
    if (nodes.length < 100) break;
  }
  return { events, graphNodes, facts, edges: edges.size };
}
async function main() {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      k: { type: 'string', default: '5,10,25' },
      out: { type: 'string', default: 'eval/out' },
      'limit-conversations': { type: 'string' },
      answer: { type: 'boolean', default: false },
      repeats: { type: 'string' },
      rounds: { type: 'string' },
      'judge-model': { type: 'string' },
      'limit-questions': { type: 'string' },
    },
  });
  if (!values.data) {
    throw new Error(
      'usage: npm run eval:locomo -- --data <file> [--k 5,10,25] [--out <dir>] [--limit-conversations N] ' +
        '[--answer [--repeats 3] [--rounds 4] [--judge-model <name>] [--limit-questions N]]',
    );
  }
  const answerFlags = ['repeats', 'rounds', 'judge-model', 'limit-questions'] as const;
  const stray = answerFlags.filter((f) => values[f] !== undefined);
  if (!values.answer && stray.length > 0) {
    throw new Error(`${stray.map((f) => `--${f}`).join(', ')}: only with --answer`);
  }
  const limit = values['limit-conversations'];
  const num = (x: string | undefined) => (x === undefined ? undefined : Number(x));
  let answer: AnswerModeOptions | undefined;
  if (values.answer) {
    const models = answerModelsFromEnv(process.env, values['judge-model']);
    answer = {
      ...models,
      rounds: num(values.rounds),
      repeats: num(values.repeats),
      limitQuestions: num(values['limit-questions']),
    };
  }
  const report = await runLocomoEval({
    data: values.data,
    ks: values.k.split(',').map((k) => Number(k.trim())),
    outDir: values.out,
    ...(limit !== undefined ? { limitConversations: Number(limit) } : {}),
    ...(answer ? { answer } : {}),
  });
  console.log(report.markdown);
  if (report.answer) console.log(report.answer.markdown);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(err instanceof AnswerModeConfigError ? `eval:locomo: ${err.message}` : err);
    process.exit(err instanceof AnswerModeConfigError ? 2 : 1);
  });
}
