/**
 * `npm run eval:locomo -- --data <file> [--k 5,10,25] [--out <dir>] [--limit-conversations N]`
 * `  [--answer [--repeats 3] [--rounds 4] [--judge-model <name>] [--limit-questions N]]`
 *
 * Turn-level retrieval on LoCoMo through the real system: all four roles in this process
 * (test/harness.ts wiring; in-memory PGlite, or a fresh database on DATABASE_URL) with the offline
 * provider (startTestNode reads no model settings from the environment). Each sample becomes a space, each session a
 * thread, each dataset turn one ingested turn; after consolidation settles, every question is
 * asked of event search and raw search, both mapped to source turns and fused with RRF. A plain
 * BM25 over the same turns is scored in the same run. With `--answer` (a model configured with
 * STRATAGATE_MODEL_*), the scored questions are also answered by an agent through the evidence
 * gate and graded by an LLM judge (answer-mode.ts), reported beside the retrieval report.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { rrfFuse, RRF_K } from '@stratagate/domain';
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
  rrfK: RRF_K,
  /**
   * Raw search is the turn-level retriever; an event hit is a second vote for the turns it cites
   * (events are extracted from those messages), so it counts half. On dev5 (offline provider):
   * equal weights R@5 55.5 / R@10 68.7, events at 0.5 R@5 57.0 / R@10 69.0; no other value tried.
   */
  rrfWeights: { events: 0.5, raw: 1 },
  baseline:
    'BM25 over turn content (text + photo caption), k1 1.2, b 0.75, tokenize() of @stratagate/domain',
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
}

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
  conversations: ConversationReport[];
  questions: QuestionResult[];
  markdown: string;
  answer?: AnswerReport;
}

interface Hit {
  ref: string;
  threadId: string;
  turnRange: [number, number];
  message: { messageId: string; content: string };
}

interface EventHit {
  id: string;
  sourceMessageIds: string[];
}

/** Waits until the log is projected and no derivation job is pending (like TestNode.settle). */
async function settle(t: TestNode, spaceId: string, timeoutMs = 15 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await t.request('GET', `/v1/spaces/${spaceId}/status`);
    const done =
      s.status === 200 &&
      s.body.projectedPosition >= s.body.logPosition &&
      s.body.summaryJobs.pending === 0 &&
      s.body.extractionJobs.pending === 0 &&
      s.body.graphJobs.pending === 0 &&
      s.body.blocks.pending === s.body.summaryJobs.failed;
    if (done) return;
    if (Date.now() > deadline) {
      throw new Error(`space ${spaceId} did not settle: ${JSON.stringify(s.body)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function expectOk(res: { status: number; body: unknown }, what: string, status = 200) {
  if (res.status !== status) {
    throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  }
}

const cut = (text: string, max: number) => Array.from(text).slice(0, max).join('');

/** Maps system hits back to dataset turns: (threadId, threadTurn) ↔ (session N, turn index). */
class TurnMap {
  private readonly byThreadTurn = new Map<string, LocomoTurn>();
  private readonly byMessage = new Map<string, string>();

  constructor(sessions: readonly LocomoSession[]) {
    for (const s of sessions) {
      for (const t of s.turns) this.byThreadTurn.set(`${s.threadId}#${t.index}`, t);
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
    const turn = this.turnAt(hit.threadId, hit.turnRange[0] + index);
    if (cut(turn.content, 500) !== hit.message.content) {
      throw new Error(`raw hit ${hit.ref} does not match ${turn.diaId}: ${hit.message.content}`);
    }
    this.byMessage.set(hit.message.messageId, turn.diaId);
    return turn.diaId;
  }

  message(messageId: string): string | undefined {
    return this.byMessage.get(messageId);
  }

  learn(messageId: string, diaId: string) {
    this.byMessage.set(messageId, diaId);
  }
}

async function systemRanking(
  t: TestNode,
  spaceId: string,
  threadId: string,
  query: string,
  map: TurnMap,
  limit: number,
): Promise<string[]> {
  const base = `/v1/spaces/${spaceId}`;
  const [events, raw] = await Promise.all([
    t.request('POST', `${base}/threads/${threadId}/search/events`, {
      query,
      limit: EVAL_SETTINGS.eventSearchLimit,
    }),
    t.request('POST', `${base}/threads/${threadId}/search/raw`, {
      query,
      limit: EVAL_SETTINGS.rawSearchLimit,
      scope: EVAL_SETTINGS.rawSearchScope,
    }),
  ]);
  expectOk(events, 'search/events');
  expectOk(raw, 'search/raw');
  const eventTurns: string[] = [];
  for (const hit of events.body.hits as EventHit[]) {
    if (hit.sourceMessageIds.some((m) => map.message(m) === undefined)) {
      const detail = await t.request('GET', `${base}/memory-events/${hit.id}`);
      expectOk(detail, `memory-events/${hit.id}`);
      for (const s of detail.body.sources as {
        messageId: string;
        threadId: string;
        threadTurn: number;
      }[]) {
        map.learn(s.messageId, map.turnAt(s.threadId, s.threadTurn).diaId);
      }
    }
    for (const m of hit.sourceMessageIds) {
      const id = map.message(m);
      if (id !== undefined && !eventTurns.includes(id)) eventTurns.push(id);
    }
  }
  const rawTurns: string[] = [];
  for (const hit of raw.body.hits as Hit[]) {
    const id = map.rawHit(hit);
    if (!rawTurns.includes(id)) rawTurns.push(id);
  }
  return rrfFuse(
    [
      { ids: eventTurns, weight: EVAL_SETTINGS.rrfWeights.events },
      { ids: rawTurns, weight: EVAL_SETTINGS.rrfWeights.raw },
    ],
    EVAL_SETTINGS.rrfK,
  )
    .map((f) => f.id)
    .slice(0, limit);
}

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
    `System: event search (limit ${s.eventSearchLimit}, hits → cited turns) and raw search (limit ${s.rawSearchLimit}, scope ${s.rawSearchScope}) ` +
      `fused with RRF k=${s.rrfK}, weights events ${s.rrfWeights.events} : raw ${s.rrfWeights.raw}; sessions closed at their end: ${s.closeSessions}; block size ${s.blockSize}` +
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
  try {
    for (const [ci, sample] of samples.entries()) {
      const tag = `[locomo ${ci + 1}/${samples.length} ${sample.sample_id}]`;
      const spaceId = `locomo-${sample.sample_id}`;
      const base = `/v1/spaces/${spaceId}`;
      const sessions = sessionsOf(sample);
      const turns = sessions.flatMap((s) => s.turns);
      expectOk(
        await t.request('PUT', `${base}/settings`, { blockSize: EVAL_SETTINGS.blockSize }),
        'settings',
      );

      const t0 = performance.now();
      let done = 0;
      for (const session of sessions) {
        for (const turn of session.turns) {
          const res = await t.request('POST', `${base}/turns`, {
            turnId: turn.diaId,
            threadId: session.threadId,
            occurredAt: turn.occurredAt,
            messages: [{ role: 'user', name: turn.speaker, content: turn.content }],
          });
          expectOk(res, `turn ${turn.diaId}`, 202);
          if (res.body.threadTurn !== turn.index) {
            throw new Error(
              `turn ${turn.diaId} became thread turn ${res.body.threadTurn}, expected ${turn.index}`,
            );
          }
          done++;
          if (done % 100 === 0) log(`${tag} ingested ${done}/${turns.length} turns`);
        }
        if (EVAL_SETTINGS.closeSessions) {
          const closed = await t.request('POST', `${base}/threads/${session.threadId}/close`);
          if (closed.status !== 200 && closed.status !== 202) {
            throw new Error(`close ${session.threadId}: HTTP ${closed.status}`);
          }
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
        const system = await systemRanking(t, spaceId, threadId, qa.question, map, maxK);
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
        });
        scoredQa.push({ index: qi, qa });
        if ((qi + 1) % 50 === 0) log(`${tag} questions ${qi + 1}/${sample.qa.length}`);
      }
      const t3 = performance.now();
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
  const outDir = options.outDir === undefined ? 'eval/out' : options.outDir;
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
