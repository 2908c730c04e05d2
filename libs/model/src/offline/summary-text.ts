import { collapseWhitespace, cutAtBoundary } from '../text.ts';
import type { BlockAnalysis, Sentence } from './block-analysis.ts';
import { centrality } from './ranking.ts';
import { SIGNAL_WEIGHT } from './signals.ts';
import { isNearDuplicate } from './similarity.ts';

const SENTENCE_MAX = 160;
const SUMMARY_BUDGET = 360;

/**
 * L1: the 1–3 most central sentences of the block, in their original order, each cut to a
 * readable length and labelled with the speaker when several named people talk.
 */
export function pickSummary(analysis: BlockAnalysis, weights: ReadonlyMap<string, number>): string {
  const pool = analysis.content;
  const wanted = pool.length <= 2 ? pool.length : pool.length <= 6 ? 2 : 3;
  const ranked = pool
    .map((s) => ({ s, score: summaryScore(s, weights) }))
    .sort((a, b) => b.score - a.score || a.s.order - b.s.order);
  const chosen: Sentence[] = [];
  let used = 0;
  for (const { s } of ranked) {
    if (chosen.length >= wanted) break;
    if (chosen.some((c) => isNearDuplicate(c, s))) continue;
    const length = Math.min(Array.from(s.text).length, SENTENCE_MAX);
    if (chosen.length > 0 && used + length > SUMMARY_BUDGET) continue;
    chosen.push(s);
    used += length;
  }
  if (chosen.length === 0)
    return cutAtBoundary(collapseWhitespace(analysis.fallback), SENTENCE_MAX);
  return chosen
    .sort((a, b) => a.order - b.order)
    .map((s) => render(s, analysis.labelSpeakers))
    .join(' ');
}

/** Topic first, then what was decided or planned; user lines slightly ahead of answers. */
function summaryScore(s: Sentence, weights: ReadonlyMap<string, number>): number {
  const cues = Math.min(
    7,
    s.signals.reduce((sum, signal) => sum + SIGNAL_WEIGHT[signal], 0),
  );
  const role = s.role === 'user' ? 1 : 0.8;
  const question = s.question ? 0.7 : 1;
  return (centrality(s, weights) + 0.1 * cues) * role * question;
}

function render(s: Sentence, labelSpeakers: boolean): string {
  const flat = collapseWhitespace(s.text);
  const cut = cutAtBoundary(flat, SENTENCE_MAX);
  const body = cut.length < flat.length ? `${cut}…` : closeSentence(cut);
  return labelSpeakers && s.speaker ? `${s.speaker}: ${body}` : body;
}

/** Lines without end punctuation still read as sentences once joined. */
function closeSentence(text: string): string {
  if (/[.!?。！？…"'”’)）]$/u.test(text)) return text;
  return /\p{Script=Han}$/u.test(text) ? `${text}。` : `${text}.`;
}
