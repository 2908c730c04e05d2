/**
 * Splits message text into the "parts" that MM-BLK-11 and MM-BLK-12 work on: fenced code blocks
 * and paragraphs (runs of non-blank lines). Every part keeps the exact whitespace before it
 * (`lead`), so `joinParts(splitParts(t)) === t` and untouched parts stay byte-identical.
 */

export type TextPartKind = 'fence' | 'paragraph';

export interface TextPart {
  kind: TextPartKind;
  /** The exact text between the previous part (or the start) and this one. */
  lead: string;
  text: string;
}

export interface SplitText {
  parts: TextPart[];
  /** Whatever follows the last part (trailing blank lines or spaces). */
  trailing: string;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

interface LineSpan {
  start: number;
  /** Exclusive, before the '\n'. */
  end: number;
}

function lineSpans(text: string): LineSpan[] {
  const spans: LineSpan[] = [];
  let start = 0;
  for (;;) {
    const newline = text.indexOf('\n', start);
    if (newline === -1) {
      spans.push({ start, end: text.length });
      return spans;
    }
    spans.push({ start, end: newline });
    start = newline + 1;
  }
}

function isFenceClose(line: string, fence: string): boolean {
  const trimmed = line.trim();
  return trimmed.length >= fence.length && [...trimmed].every((char) => char === fence[0]);
}

export function splitParts(text: string): SplitText {
  const lines = lineSpans(text);
  const lineText = (index: number): string => {
    const span = lines[index];
    return span === undefined ? '' : text.slice(span.start, span.end);
  };
  const parts: TextPart[] = [];
  let cursor = 0;
  const push = (kind: TextPartKind, first: number, last: number): void => {
    const start = lines[first]?.start ?? cursor;
    const end = lines[last]?.end ?? start;
    parts.push({ kind, lead: text.slice(cursor, start), text: text.slice(start, end) });
    cursor = end;
  };

  let index = 0;
  while (index < lines.length) {
    const line = lineText(index);
    if (line.trim() === '') {
      index += 1;
      continue;
    }
    const fence = FENCE_OPEN.exec(line)?.[1];
    if (fence !== undefined) {
      // An unclosed fence runs to the end of the text, as in Markdown.
      let close = index + 1;
      while (close < lines.length && !isFenceClose(lineText(close), fence)) close += 1;
      const last = Math.min(close, lines.length - 1);
      push('fence', index, last);
      index = last + 1;
      continue;
    }
    let last = index;
    while (last + 1 < lines.length) {
      const next = lineText(last + 1);
      if (next.trim() === '' || FENCE_OPEN.test(next)) break;
      last += 1;
    }
    push('paragraph', index, last);
    index = last + 1;
  }
  return { parts, trailing: text.slice(cursor) };
}

export function joinParts(split: SplitText): string {
  return split.parts.map((part) => part.lead + part.text).join('') + split.trailing;
}
