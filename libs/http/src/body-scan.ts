import type { ErrorIssue } from './errors.ts';

/**
 * How deep a request's JSON may nest: far beyond any document the API defines (a turn's tool
 * call arguments nest a few levels), and far below the depth at which recursive code on the
 * append path (`JSON.stringify`, the database driver) runs out of stack.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The first value of a parsed request (its body or query) that no store can keep or no code can
 * walk safely: a string or key holding a NUL character or a lone UTF-16 surrogate (neither fits
 * Postgres `text` or `jsonb`), or a value nested deeper than `MAX_JSON_DEPTH`. Walks with an
 * explicit stack, so a value nested a million levels deep is refused without recursion. Null when
 * the value is fine.
 */
export function findUnstorableValue(
  value: unknown,
  where: NonNullable<ErrorIssue['in']>,
): ErrorIssue | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const path = item.path || '/';
    if (typeof item.value === 'string') {
      const problem = unstorableText(item.value);
      if (problem) return { in: where, path, message: `${problem} in the text` };
      continue;
    }
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth >= MAX_JSON_DEPTH) {
      return { in: where, path, message: `nested deeper than ${MAX_JSON_DEPTH} levels` };
    }
    const entries = Array.isArray(item.value)
      ? item.value.map((v, i) => [String(i), v] as const)
      : Object.entries(item.value);
    // Pushed in reverse, so the first offending value in document order is the one named.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      const childPath = `${item.path}/${pointerToken(key)}`;
      const problem = Array.isArray(item.value) ? null : unstorableText(key);
      if (problem) return { in: where, path: childPath, message: `${problem} in the field name` };
      stack.push({ value: child, path: childPath, depth: item.depth + 1 });
    }
  }
  return null;
}

/** What makes `text` unstorable, or null: a NUL or a surrogate without its pair. */
export function unstorableText(text: string): string | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return 'a NUL character (\\u0000)';
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return 'a lone UTF-16 surrogate';
    }
    if (c >= 0xdc00 && c <= 0xdfff) return 'a lone UTF-16 surrogate';
  }
  return null;
}

/** A key as a JSON pointer token (RFC 6901). */
const pointerToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
