import { TITLE_MAX } from '../summary.schema.ts';
import { collapseWhitespace, cutAtBoundary } from '../text.ts';
import type { BlockAnalysis, Sentence } from './block-analysis.ts';
import { centrality } from './ranking.ts';

/** Later user sentences must be clearly better to beat the opening: blocks start with their ask. */
const POSITION_DECAY = 0.85;

const LEADING_FILLER =
  /^(?:(?:ok(?:ay)?|so|well|hi|hey|hello|thanks|thank you|yes|yeah|sure|alright|right|um+|uh+|oh|ah|hmm+|great|cool|好的|好吧|好|嗯+|那么|哦|啊|对|是的|谢谢)(?=[\s,，.。!！:：、~～-]|$)[\s,，.。!！:：、~～-]*)+/iu;

/** L0 title: the most informative user sentence, cleaned of fillers and cut at a word boundary. */
export function pickTitle(analysis: BlockAnalysis, weights: ReadonlyMap<string, number>): string {
  const user = analysis.content.filter((s) => s.role === 'user');
  const pool = user.length > 0 ? user : analysis.content;
  let best: Sentence | undefined;
  let bestScore = -1;
  pool.forEach((s, rank) => {
    const substantive = s.terms.length >= 2 || s.hanChars >= 6;
    const base = centrality(s, weights) + 0.3 * s.signals.length + (substantive ? 0.5 : 0);
    const score = base * POSITION_DECAY ** rank * (substantive ? 1 : 0.3);
    if (score > bestScore) [best, bestScore] = [s, score];
  });
  return cleanTitle(best?.text ?? analysis.fallback);
}

function cleanTitle(text: string): string {
  const flat = collapseWhitespace(text);
  const stripped = flat.replace(LEADING_FILLER, '');
  const body = (stripped === '' ? flat : stripped).replace(/[.。!！]+$/u, '');
  const title = cutAtBoundary(body === '' ? flat : body, TITLE_MAX);
  return title.charAt(0).toUpperCase() + title.slice(1);
}
