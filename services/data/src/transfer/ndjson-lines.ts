import { StringDecoder } from 'node:string_decoder';

export interface NumberedLine {
  /** 1-based, as an editor shows it. */
  number: number;
  text: string;
  /** False for a last line the file ends inside (no newline after it). */
  terminated: boolean;
}

/**
 * Splits a byte (or text) stream into lines, numbered from 1. UTF-8 sequences split across
 * chunks are joined; `\r\n` counts as one line end. A last line without a newline is yielded
 * with `terminated: false`, so a reader can tell a file cut short.
 */
export async function* ndjsonLines(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
): AsyncGenerator<NumberedLine> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let number = 0;
  for await (const chunk of source) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(Buffer.from(chunk));
    let start = 0;
    for (;;) {
      const end = pending.indexOf('\n', start);
      if (end < 0) break;
      number += 1;
      const text = pending.slice(start, end);
      yield { number, text: text.endsWith('\r') ? text.slice(0, -1) : text, terminated: true };
      start = end + 1;
    }
    pending = pending.slice(start);
  }
  pending += decoder.end();
  if (pending.length > 0) yield { number: number + 1, text: pending, terminated: false };
}
