import { splitParts } from './text-parts.ts';

/** MM-BLK-11 whitelist, compared after trimming trailing punctuation and lower-casing. */
export const FILLER_PHRASES: readonly string[] = [
  'ok',
  'okay',
  'got it',
  'thanks',
  'thank you',
  'yes',
  'correct',
  'sure',
  '好',
  '好的',
  '嗯',
  '嗯嗯',
  '明白',
  '收到',
  '谢谢',
  '感谢',
  '辛苦了',
  '是',
  '是的',
  '对',
  '对的',
  '没错',
  '可以',
  '行',
  '同意',
  '就这样',
];

const FILLERS: ReadonlySet<string> = new Set(FILLER_PHRASES);
// '.' deliberately does not end a sentence: "Okay. The source must stay." is one sentence.
const SENTENCE_END = new Set(['。', '！', '？', '!', '?']);
const TRAILING_PUNCTUATION = /[。！？，、,.!?～~\s]+$/u;

export function isFillerSentence(sentence: string): boolean {
  return FILLERS.has(sentence.trim().replace(TRAILING_PUNCTUATION, '').trim().toLowerCase());
}

/** Sentences end after a run of `。！？!?` or a newline; a following space opens the next one. */
export function splitSentences(paragraph: string): string[] {
  const sentences: string[] = [];
  let current = '';
  let closing = false;
  for (const char of paragraph) {
    if (closing && !SENTENCE_END.has(char) && char !== '\n') {
      sentences.push(current);
      current = '';
      closing = false;
    }
    current += char;
    if (char === '\n') {
      sentences.push(current);
      current = '';
      closing = false;
    } else if (SENTENCE_END.has(char)) {
      closing = true;
    }
  }
  if (current !== '') sentences.push(current);
  return sentences;
}

function dropInParagraph(paragraph: string): string {
  const sentences = splitSentences(paragraph);
  const dropped = sentences.map(isFillerSentence);
  if (!dropped.includes(true)) return paragraph;
  let kept = sentences.filter((_, index) => !dropped[index]).join('');
  // Only the seams left by a dropped sentence are trimmed; kept text is never rewritten.
  if (dropped[0]) kept = kept.trimStart();
  if (dropped[dropped.length - 1]) kept = kept.trimEnd();
  return kept;
}

/**
 * MM-BLK-11: drops standalone filler sentences outside fenced code. A paragraph with nothing
 * dropped stays byte-identical; a paragraph left empty disappears with its separator.
 */
export function dropFillers(text: string): string {
  const { parts, trailing } = splitParts(text);
  let out = '';
  let emitted = false;
  let changed = false;
  parts.forEach((part, index) => {
    const next = part.kind === 'fence' ? part.text : dropInParagraph(part.text);
    if (next !== part.text) changed = true;
    if (next === '') return;
    // A leading blank-line separator belongs to a dropped predecessor; keep only real indentation.
    out += emitted || index === 0 ? part.lead : '';
    out += next;
    emitted = true;
  });
  if (!changed) return text;
  return emitted ? out + trailing : '';
}
