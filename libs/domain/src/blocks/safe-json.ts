/**
 * Traces arrive as `unknown`: a BigInt or a cycle must not make rendering throw, because a block
 * whose layers cannot be derived could never seal. Only true cycles are cut (ancestor tracking),
 * so shared references still render in full.
 */
export function safeJsonStringify(value: unknown): string {
  const ancestors: unknown[] = [];
  const text = JSON.stringify(value, function (this: unknown, _key: string, inner: unknown) {
    if (typeof inner === 'bigint') return inner.toString();
    if (typeof inner !== 'object' || inner === null) return inner;
    // JSON.stringify calls the replacer with the holder as `this`; unwind to it.
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
    if (ancestors.includes(inner)) return '[circular]';
    ancestors.push(inner);
    return inner;
  });
  // JSON.stringify yields undefined for undefined, functions and symbols.
  return text ?? 'null';
}

/** JSON.parse without throwing; `undefined` means "not JSON". */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
