import { KEY_POINTS_MAX } from '../summary.schema.ts';
import { cutAtBoundary } from '../text.ts';
import type { BlockAnalysis, Sentence, ToolPoint } from './block-analysis.ts';
import { centrality } from './ranking.ts';
import { SIGNAL_WEIGHT } from './signals.ts';
import { isNearDuplicate, normalisedText } from './similarity.ts';

const POINT_MAX = 200;
const MIN_POINTS = 3;
/** A sentence needs one strong cue (a decision, a plan) or two weaker ones to be a point. */
const THRESHOLD = 2.5;
const SIGNAL_CAP = 7;
/** Spread points over the conversation instead of quoting one long answer. */
const SAME_MESSAGE_DECAY = 0.9;
/** Only the strongest candidates enter the greedy pick, which keeps long blocks linear. */
const SHORTLIST = 64;

interface Candidate {
  order: number;
  messageIndex: number;
  score: number;
  sentence?: Sentence;
  tool?: ToolPoint;
}

/**
 * L2: 3–8 atomic statements, favouring decisions, plans, constraints, results, preferences,
 * dates, numbers and first-person facts; in original order. Texts are prefixes of sentences
 * of the block (or `Tool <name>: <result>` lines), so points stay extractive.
 */
export function pickKeyPoints(
  analysis: BlockAnalysis,
  weights: ReadonlyMap<string, number>,
): string[] {
  const pool: Candidate[] = [
    ...analysis.content.map((s) => ({
      order: s.order,
      messageIndex: s.messageIndex,
      score: sentenceScore(s, weights),
      sentence: s,
    })),
    ...analysis.toolPoints.map((t) => ({
      order: t.order,
      messageIndex: t.messageIndex,
      score: t.failed ? 3 : 1.5,
      tool: t,
    })),
  ];
  // Exact repeats go before the shortlist, or a pasted paragraph could fill it on its own.
  const seen = new Set<string>();
  const shortlist = pool
    .filter((c) => {
      const key = normalisedText(c.tool?.text ?? c.sentence?.text ?? '');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, SHORTLIST);
  const picked: Candidate[] = [];
  const perMessage = new Map<number, number>();
  const remaining = new Set(shortlist);
  while (picked.length < KEY_POINTS_MAX && remaining.size > 0) {
    let best: Candidate | undefined;
    let bestScore = -Infinity;
    for (const c of remaining) {
      const s = c.score * SAME_MESSAGE_DECAY ** (perMessage.get(c.messageIndex) ?? 0);
      if (s > bestScore || (s === bestScore && best && c.order < best.order)) {
        [best, bestScore] = [c, s];
      }
    }
    if (!best || (bestScore < THRESHOLD && picked.length >= MIN_POINTS)) break;
    remaining.delete(best);
    if (picked.some((p) => duplicates(p, best))) continue;
    picked.push(best);
    perMessage.set(best.messageIndex, (perMessage.get(best.messageIndex) ?? 0) + 1);
  }
  return picked.sort((a, b) => a.order - b.order).map((c) => render(c, analysis.labelSpeakers));
}

function sentenceScore(s: Sentence, weights: ReadonlyMap<string, number>): number {
  const cues = Math.min(
    SIGNAL_CAP,
    s.signals.reduce((sum, signal) => sum + SIGNAL_WEIGHT[signal], 0),
  );
  // Short lines count only when they carry a date or number ("The deadline is Friday.").
  const dated = s.signals.includes('number') || s.signals.includes('time');
  const short = s.terms.length < 2 && s.hanChars < 6 && !dated;
  const role = s.role === 'user' ? 1 : 0.75;
  return (
    (cues + 1.5 * Math.min(centrality(s, weights), 2)) *
    role *
    (s.question ? 0.5 : 1) *
    (short ? 0.5 : 1)
  );
}

function duplicates(a: Candidate, b: Candidate): boolean {
  if (a.sentence && b.sentence) return isNearDuplicate(a.sentence, b.sentence);
  const x = normalisedText(a.tool?.text ?? a.sentence?.text ?? '');
  return x === normalisedText(b.tool?.text ?? b.sentence?.text ?? '');
}

function render(c: Candidate, labelSpeakers: boolean): string {
  if (c.tool) return c.tool.text;
  const s = c.sentence;
  if (!s) return '';
  const text = cutAtBoundary(s.text, POINT_MAX);
  return labelSpeakers && s.speaker ? `${s.speaker}: ${text}` : text;
}
