import { bm25Score, docTermFrequencies, tokenize, BM25_B, BM25_K1 } from '@stratagate/domain';
import type { LocomoTurn } from './dataset.ts';

/**
 * The baseline: plain BM25 over the sample's turns (k1 1.2, b 0.75), one document per turn with
 * the same content that is ingested, tokens from `tokenize` of @stratagate/domain (NFKC,
 * lower-cased Intl.Segmenter word tokens, no stemming, no stop words). Indexed once per sample.
 */
export class TurnBm25 {
  private readonly docs: {
    id: string;
    order: number;
    terms: Map<string, number>;
    length: number;
  }[];
  private readonly avgLength: number;
  private readonly df = new Map<string, number>();

  constructor(turns: readonly LocomoTurn[]) {
    this.docs = turns.map((t, order) => ({
      id: t.diaId,
      order,
      ...docTermFrequencies([{ text: t.content, weight: 1 }], tokenize),
    }));
    this.avgLength = this.docs.reduce((s, d) => s + d.length, 0) / Math.max(1, this.docs.length);
    for (const d of this.docs)
      for (const term of d.terms.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1);
  }

  /** Dia ids with score > 0, best first; ties in conversation order. */
  rank(query: string, limit: number): string[] {
    const terms = [...new Set(tokenize(query))];
    const N = this.docs.length;
    const scored: { id: string; order: number; score: number }[] = [];
    for (const d of this.docs) {
      let score = 0;
      for (const term of terms) {
        const tf = d.terms.get(term) ?? 0;
        if (tf === 0) continue;
        score += bm25Score({
          tf,
          docLength: d.length,
          avgDocLength: this.avgLength,
          df: this.df.get(term) ?? 0,
          N,
          k1: BM25_K1,
          b: BM25_B,
        });
      }
      if (score > 0) scored.push({ id: d.id, order: d.order, score });
    }
    scored.sort((a, b) => b.score - a.score || a.order - b.order);
    return scored.slice(0, limit).map((s) => s.id);
  }
}

export interface QuestionScore {
  recall: Record<number, number>;
  hitAll: Record<number, number>;
}

/** Paper scoring: fraction of gold turns in the top k; hit_all: all of them are. */
export function scoreQuestion(
  gold: readonly string[],
  ranked: readonly string[],
  ks: readonly number[],
): QuestionScore {
  const recall: Record<number, number> = {};
  const hitAll: Record<number, number> = {};
  for (const k of ks) {
    const top = new Set(ranked.slice(0, k));
    const found = gold.filter((g) => top.has(g)).length;
    recall[k] = found / gold.length;
    hitAll[k] = found === gold.length ? 1 : 0;
  }
  return { recall, hitAll };
}

export interface Aggregate {
  /** Questions averaged over. */
  n: number;
  /** Means in [0, 1] per k; null when n = 0. */
  recall: Record<number, number | null>;
  hitAll: Record<number, number | null>;
}

export function aggregate(scores: readonly QuestionScore[], ks: readonly number[]): Aggregate {
  const recall: Record<number, number | null> = {};
  const hitAll: Record<number, number | null> = {};
  for (const k of ks) {
    recall[k] = scores.length ? scores.reduce((s, q) => s + q.recall[k]!, 0) / scores.length : null;
    hitAll[k] = scores.length ? scores.reduce((s, q) => s + q.hitAll[k]!, 0) / scores.length : null;
  }
  return { n: scores.length, recall, hitAll };
}
