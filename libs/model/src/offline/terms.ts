import {
  CHINESE_STOP_WORDS,
  ENGLISH_STOP_WORDS,
  HAN_FUNCTION_CHARS,
  HAN_SURNAMES,
} from './stop-words.ts';
import { hasHan, isSingleHan, type WordSegment } from './words.ts';

/** One candidate term occurrence. `key` groups variants (case, plural); `proper` marks names. */
export interface TermHit {
  key: string;
  surface: string;
  proper: boolean;
}

const NON_WORD = /^[\p{N}\p{P}\p{S}\s]+$/u;
const DIGIT = /\p{Nd}/gu;

/**
 * Content terms of one sentence, in order. Latin words come from the segmenter; Han text uses
 * dictionary words of ≥ 2 characters, plus names and bigrams rebuilt from runs of single
 * characters the dictionary did not know (李|明 → 李明).
 */
export function extractTerms(segments: readonly WordSegment[]): TermHit[] {
  const hits: TermHit[] = [];
  let run: string[] = [];
  let runEnd = -1;
  let sentenceStart = true;
  const flush = () => {
    if (run.length > 1) hits.push(...hanRunTerms(run));
    run = [];
  };
  for (const seg of segments) {
    if (!seg.wordLike) {
      flush();
      continue;
    }
    if (isSingleHan(seg.text)) {
      if (seg.index !== runEnd) flush();
      run.push(seg.text);
      runEnd = seg.index + seg.text.length;
    } else {
      flush();
      const hit = hasHan(seg.text) ? hanWord(seg.text) : latinWord(seg.text, sentenceStart);
      if (hit) hits.push(hit);
    }
    sentenceStart = false;
  }
  flush();
  return hits;
}

function hanWord(word: string): TermHit | null {
  if (CHINESE_STOP_WORDS.has(word) || Array.from(word).length < 2) return null;
  return { key: word, surface: word, proper: false };
}

function latinWord(raw: string, sentenceStart: boolean): TermHit | null {
  const word = raw.replace(/['’]s$/u, '');
  // Other apostrophes are contractions (don't, we've): function words, never topics.
  if (/['’]/u.test(word) || NON_WORD.test(word) || !/\p{L}/u.test(word)) return null;
  // File names, hosts and versions (lock.json, v1.2) are fragments, not topics.
  if (word.includes('.')) return null;
  const lower = word.toLowerCase();
  const length = Array.from(word).length;
  const acronym = /^\p{Lu}{2,}$/u.test(word);
  if (ENGLISH_STOP_WORDS.has(lower) || length > 40) return null;
  if (length < 3 && !acronym) return null;
  // Hashes, ids and version strings are mostly digits; they make poor tags.
  if ((word.match(DIGIT)?.length ?? 0) * 2 > length) return null;
  const capitalised = /^\p{Lu}/u.test(word) && !sentenceStart;
  const proper = acronym || capitalised || /\p{Ll}\p{Lu}/u.test(word);
  return { key: stem(lower), surface: lower, proper };
}

/** Just enough folding to merge plurals (packages → package) without a real stemmer. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('s') && !/(ss|us|is)$/u.test(word)) {
    return word.slice(0, -1);
  }
  return word;
}

function hanRunTerms(chars: string[]): TermHit[] {
  const out: TermHit[] = [];
  let i = 0;
  while (i < chars.length - 1) {
    const a = chars[i] ?? '';
    const b = chars[i + 1] ?? '';
    if (HAN_SURNAMES.has(a) && !HAN_FUNCTION_CHARS.has(b)) {
      const c = chars[i + 2];
      const three = c !== undefined && !HAN_FUNCTION_CHARS.has(c) && !HAN_SURNAMES.has(c);
      const name = three ? a + b + c : a + b;
      out.push({ key: name, surface: name, proper: true });
      i += three ? 3 : 2;
      continue;
    }
    if (!HAN_FUNCTION_CHARS.has(a) && !HAN_FUNCTION_CHARS.has(b)) {
      const bigram = a + b;
      if (!CHINESE_STOP_WORDS.has(bigram))
        out.push({ key: bigram, surface: bigram, proper: false });
    }
    i += 1;
  }
  return out;
}
