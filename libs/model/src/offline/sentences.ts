/**
 * Sentence splitting for English and Chinese. Every sentence is an exact substring of the
 * message, so anything built from it stays extractive.
 *
 * A small scanner instead of `Intl.Segmenter('sentence')`: Node 20's ICU data has no
 * abbreviation suppressions ("Dr. " ends a sentence there) and its iteration is superlinear
 * on long text, while the rules we need fit in one regular expression.
 */

/** Only so much of one message is read: its head and tail, each analysed on its own. */
const HEAD_UNITS = 12_000;
const TAIL_UNITS = 4_000;

const LINE_BREAK = /\r\n|\r|\n/u;
const FENCE = /^(```|~~~)/u;
const LIST_MARKER = /^(?:[-*+•>]+|#{1,6}|\d{1,3}[.)、])\s+/u;
const CODE_START =
  /^(?:const|let|var|function|class|import|export|def|return|SELECT|INSERT|UPDATE|DELETE|CREATE)\s.*[;{}()=]/u;
const CODE_END = /[{};]$|=>/u;
/** 。！？!? always end a sentence; a dot only before whitespace or the end of the line. */
const SENTENCE_END = /[。！？!?]+["'”’)）」』\]]*|\.+["'”’)\]]*(?=\s|$)/gu;
const ABBREVIATIONS = new Set([
  ...'mr mrs ms dr prof sr jr st vs fig approx inc ltd'.split(' '),
  ...'jan feb mar apr jun jul aug sep sept oct nov dec'.split(' '),
  ...'e.g i.e eg ie u.s a.m p.m'.split(' '),
]);

export function splitSentences(content: string): string[] {
  const out: string[] = [];
  for (const part of boundedParts(content)) {
    let inFence = false;
    for (const raw of part.split(LINE_BREAK)) {
      const line = raw.trim();
      if (FENCE.test(line)) {
        inFence = !inFence;
        continue;
      }
      // Code is not a statement; L3–L5 keep it, the summary does not need it.
      if (inFence || line === '' || CODE_START.test(line) || CODE_END.test(line)) continue;
      out.push(...splitLine(line.replace(LIST_MARKER, '')));
    }
  }
  return out;
}

function splitLine(line: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const match of line.matchAll(SENTENCE_END)) {
    const at = match.index;
    if (match[0].startsWith('.') && match[0].length === 1 && isAbbreviation(line, at)) continue;
    const end = at + match[0].length;
    push(out, line.slice(start, end));
    start = end;
  }
  push(out, line.slice(start));
  return out;
}

function push(out: string[], piece: string): void {
  const text = piece.trim();
  if (text !== '') out.push(text);
}

function isAbbreviation(line: string, dotIndex: number): boolean {
  const before = /([\p{L}.]+)$/u.exec(line.slice(Math.max(0, dotIndex - 12), dotIndex));
  const word = before?.[1] ?? '';
  // A single capital is an initial ("J. Smith"), not the end of a sentence.
  return ABBREVIATIONS.has(word.toLowerCase()) || /^\p{Lu}$/u.test(word);
}

function boundedParts(content: string): string[] {
  if (content.length <= HEAD_UNITS + TAIL_UNITS) return [content];
  return [
    content.slice(0, safeCut(content, HEAD_UNITS)),
    content.slice(safeCut(content, content.length - TAIL_UNITS)),
  ];
}

/** Never split a surrogate pair: move the cut before a high surrogate. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}
