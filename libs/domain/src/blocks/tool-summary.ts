import { isPlainRecord, tryParseJson } from './safe-json.ts';
import { takeCodePoints } from './tokens.ts';

/** MM-BLK-13: a result summary is cut to this many code points. */
export const RESULT_SUMMARY_MAX = 160;
const ERROR_DETAIL_MAX = 140;

/** Keys that carry a call's input, not its outcome; they never reach L3 or L4 (MM-BLK-8). */
export const ARGUMENT_KEYS: ReadonlySet<string> = new Set([
  'arguments',
  'params',
  'input',
  'request',
]);

/** MM-BLK-13, first match wins. Always at most 160 code points. */
export function summarizeToolResult(result: unknown): string {
  return takeCodePoints(summarize(result, true), RESULT_SUMMARY_MAX);
}

function summarize(result: unknown, parseStrings: boolean): string {
  if (result === undefined || result === null) return 'no result';
  if (typeof result === 'string') {
    // Tools often return JSON as text; its structure says more than its first 160 characters.
    const parsed = parseStrings ? tryParseJson(result) : undefined;
    if (parsed !== undefined) return summarize(parsed, false);
    return result.trim() === '' ? 'empty result' : result;
  }
  if (typeof result === 'number' || typeof result === 'boolean' || typeof result === 'bigint') {
    return String(result);
  }
  if (!isPlainRecord(result)) return 'structured result returned';
  return summarizeRecord(result);
}

function summarizeRecord(result: Record<string, unknown>): string {
  // A blank `error` is how many tools say "no error", so only a non-blank one means failure.
  const error = nonBlankString(result['error']);
  if (error !== null) return `failed: ${takeCodePoints(error, ERROR_DETAIL_MAX)}`;
  const text = nonBlankString(result['summary']) ?? nonBlankString(result['message']);
  if (text !== null) return text;
  const counts = Object.entries(result)
    .filter(([key, value]) => Array.isArray(value) && !ARGUMENT_KEYS.has(key.toLowerCase()))
    .map(([key, value]) => `${key}: ${(value as unknown[]).length}`);
  if (counts.length > 0) return counts.join(', ');
  if (result['ok'] === true) return 'completed';
  if (result['ok'] === false) return 'not completed';
  return 'structured result returned';
}

function nonBlankString(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

interface ToolEntry {
  name: string;
  result: unknown;
  hasResult: boolean;
}

// Closing fence must use the opening fence's character run (backreference).
const FENCED = /^(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n?\1\s*$/;

/**
 * MM-BLK-10: tool JSON (fences stripped) is an object or array with `name` + `arguments` or
 * `parameters`, `tool`, or `function.name`. An OpenAI-style `{tool_calls: [...]}` wrapper counts
 * too, since rendering it verbatim would leak raw arguments into L4. An array counts only when
 * every element is a tool call, so a result list that merely contains one is kept verbatim.
 */
export function parseToolJson(text: string): { names: string[]; summary: string } | null {
  const trimmed = text.trim();
  const body = (FENCED.exec(trimmed)?.[2] ?? trimmed).trim();
  if (!body.startsWith('{') && !body.startsWith('[')) return null;
  const entries = collectEntries(tryParseJson(body));
  if (entries === null || entries.length === 0) return null;
  const results = entries.filter((entry) => entry.hasResult);
  const summary =
    results.length === 0
      ? 'no result'
      : results.map((entry) => summarizeToolResult(entry.result)).join('; ');
  return {
    names: entries.map((entry) => entry.name),
    summary: takeCodePoints(summary, RESULT_SUMMARY_MAX),
  };
}

function collectEntries(value: unknown): ToolEntry[] | null {
  if (Array.isArray(value)) {
    const entries = value.map(toolEntry);
    return entries.every((entry) => entry !== null) ? (entries as ToolEntry[]) : null;
  }
  if (!isPlainRecord(value)) return null;
  const entry = toolEntry(value);
  if (entry !== null) return [entry];
  const wrapped = value['tool_calls'];
  return Array.isArray(wrapped) ? collectEntries(wrapped) : null;
}

function toolEntry(value: unknown): ToolEntry | null {
  if (!isPlainRecord(value)) return null;
  const name = toolName(value);
  if (name === null) return null;
  const hasResult = 'result' in value || 'output' in value;
  return { name, result: 'result' in value ? value['result'] : value['output'], hasResult };
}

function toolName(value: Record<string, unknown>): string | null {
  const direct = value['name'];
  if (typeof direct === 'string' && ('arguments' in value || 'parameters' in value)) {
    return displayToolName(direct);
  }
  const tool = value['tool'];
  if (typeof tool === 'string') return displayToolName(tool);
  if (isPlainRecord(tool) && typeof tool['name'] === 'string') return displayToolName(tool['name']);
  const fn = value['function'];
  if (isPlainRecord(fn) && typeof fn['name'] === 'string') return displayToolName(fn['name']);
  return null;
}

export function displayToolName(name: string): string {
  const trimmed = name.trim();
  return trimmed === '' ? 'unknown' : trimmed;
}

/** The MM-BLK-10 line for one or more calls. */
export function renderToolCallLine(names: readonly string[], summary: string): string {
  return `Tool call: ${names.length === 0 ? 'unknown' : names.join(', ')} (${summary})`;
}

const RAW_TOOL_CALL_HINT = /tool_calls|"function"|"arguments"/;
const QUOTED_NAME = /"name"\s*:\s*"((?:[^"\\\n]|\\.){1,120})"/g;

/** MM-BLK-10, L3 only: text that looks like a raw tool call but is not parsable tool JSON. */
export function looksLikeRawToolCall(text: string): boolean {
  return RAW_TOOL_CALL_HINT.test(text);
}

/** Best-effort names from `"name": "x"` pairs in unparsable text; `['unknown']` if none. */
export function guessToolNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(QUOTED_NAME)) {
    const name = (match[1] ?? '').trim();
    if (name !== '' && !names.includes(name)) names.push(name);
  }
  return names.length > 0 ? names : ['unknown'];
}
