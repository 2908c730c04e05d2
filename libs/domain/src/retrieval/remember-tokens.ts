import * as stopwordLists from 'stopword';
import { normaliseText, tokenize } from './tokenize.ts';

/*
 * What the remember gate compares (MM-REM-3, MM-GEN-12). Containment over every token counted
 * the function words two statements share ("the", "in", "的", "我们") as overlap, so unrelated
 * statements of ten words with three function words in common looked like near-conflicts. The
 * gate compares content tokens instead: the MM-RET-1 tokens without English function words (the
 * `stopword` package's list, as search does) and without Han unigrams or bigrams made only of
 * Chinese function characters. Negation is never a function word here: "does not use pnpm" must
 * not look like "uses pnpm".
 */

const NEGATION_WORDS = new Set(['not', 'no', 'never', 'nor', 'none', 'nothing', 'cannot']);
const NEGATION_HAN = new Set(['不', '没', '别', '未', '无', '非', '勿', '莫']);
const ENGLISH_FUNCTION = new Set(stopwordLists.eng.filter((w) => !NEGATION_WORDS.has(w)));
const HAN_FUNCTION = new Set(stopwordLists.zho.filter((c) => !NEGATION_HAN.has(c)));

/*
 * Search's tokenisation cuts clitics ("doesn't" → `word:does`, ADR 0040), which would lose the
 * negation the gate must see. The gate spells a negated contraction out before tokenising:
 * "doesn't" → "does not", "can't" → "can not", so it compares like the written-out form.
 * A match starts only at a word's start, so a long run of letters is scanned once, not once per
 * letter.
 */
const CONTRACTED_NOT = /(?<!\p{L})(\p{L}+?)n['\u2019\u02bc\uff07]t(?!\p{L})/giu;
/** Contractions whose stem is not what remains when "n't" is cut off. */
const IRREGULAR_STEMS: Readonly<Record<string, string>> = { ca: 'can', wo: 'will', sha: 'shall' };

/** `text` with each "n't" contraction written out as its verb and "not". */
export function withNegationsSpelledOut(text: string): string {
  return text.replace(CONTRACTED_NOT, (_, stem: string) => {
    const lower = stem.toLocaleLowerCase();
    return `${IRREGULAR_STEMS[lower] ?? stem} not`;
  });
}

function isFunctionToken(token: string): boolean {
  if (token.startsWith('word:')) return ENGLISH_FUNCTION.has(token.slice(5));
  const chars = Array.from(token.slice(5));
  return chars.every((c) => HAN_FUNCTION.has(c));
}

/** The content tokens of `text`: MM-RET-1 tokens without function words, negation kept. */
export function rememberTokens(text: string): string[] {
  return tokenize(withNegationsSpelledOut(text)).filter((token) => !isFunctionToken(token));
}

/*
 * Chinese negation read from the text, not from bigrams: 不/没/别/未/无/非 start many words that
 * negate nothing (不同 different, 不错 good, 不过 but, 别人 others, 未来 future, 非常 very, 无论
 * regardless), which are taken out before looking.
 */
const HAN_NON_NEGATING = /不同|不错|不过|不仅|不断|不久|别人|别的|未来|非常|无论|无关/gu;
const HAN_NEGATION = /[不没别未无勿莫]|非(?!常)/u;

/** Whether the statement is negated: "not", "never", "n't", 不, 没有, … (polarity, MM-REM-3). */
export function isNegated(text: string): boolean {
  const normal = normaliseText(text);
  if (HAN_NEGATION.test(normal.replace(HAN_NON_NEGATING, ''))) return true;
  return tokenize(withNegationsSpelledOut(normal)).some(
    (t) => t.startsWith('word:') && NEGATION_WORDS.has(t.slice(5)),
  );
}
