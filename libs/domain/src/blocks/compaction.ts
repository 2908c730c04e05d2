import type { LayerMessage, LayerToolCall } from './layer-message.ts';
import { isPlainRecord, safeJsonStringify, tryParseJson } from './safe-json.ts';
import { codePointLength } from './tokens.ts';
import { summarizeToolResult } from './tool-summary.ts';

/*
 * MM-BLK-15: summary and extraction models get a compacted copy so one huge trace cannot crowd
 * out the conversation. The input is never mutated; L5 keeps every original value.
 */

export const TOOL_MESSAGE_MAX_CHARS = 2400;
export const CODE_ARGUMENT_MAX_CHARS = 240;
export const ARGUMENTS_MAX_CHARS = 1200;
export const RESULT_MAX_CHARS = 2400;

/** Compared after lower-casing and removing `_` and `-`, so `source_code` and `Source-Code` match. */
const CODE_KEYS: ReadonlySet<string> = new Set([
  'code',
  'command',
  'program',
  'script',
  'source',
  'sourcecode',
]);

/** What an oversized argument or result becomes; head and tail are cut by code points. */
export interface CompactedValue {
  originalChars: number;
  summary?: string;
  head: string;
  tail: string;
  omittedChars: number;
}

export function compactForModel(messages: LayerMessage[]): LayerMessage[] {
  return messages.map((message) => {
    const compacted: LayerMessage = {
      role: message.role,
      content: message.role === 'tool' ? compactToolText(message.content) : message.content,
    };
    if (message.toolCalls !== undefined) compacted.toolCalls = message.toolCalls.map(compactCall);
    return compacted;
  });
}

/** Keeps the head 60 % and tail 20 %: tool output usually ends with its verdict. */
function compactToolText(text: string): string {
  const chars = Array.from(text);
  if (chars.length <= TOOL_MESSAGE_MAX_CHARS) return text;
  const head = Math.floor(chars.length * 0.6);
  const tail = Math.floor(chars.length * 0.2);
  const omitted = chars.length - head - tail;
  return (
    chars.slice(0, head).join('') +
    `\n[... ${omitted} chars omitted; full text remains in L5 ...]\n` +
    chars.slice(chars.length - tail).join('')
  );
}

function compactCall(call: LayerToolCall): LayerToolCall {
  const compacted: LayerToolCall = { name: call.name };
  if (call.arguments !== undefined) compacted.arguments = compactArguments(call.arguments);
  if (call.result !== undefined) compacted.result = compactResult(call.result);
  return compacted;
}

function compactArguments(args: unknown): unknown {
  let value = args;
  if (typeof args === 'string') {
    // Many hosts pass arguments as a JSON string; look inside it but keep it a string.
    const parsed = tryParseJson(args);
    if (typeof parsed === 'object' && parsed !== null) {
      const omitted = omitCode(parsed, null, []);
      if (omitted !== parsed) value = safeJsonStringify(omitted);
    }
  } else {
    value = omitCode(args, null, []);
  }
  const serialized = serialize(value);
  return codePointLength(serialized) > ARGUMENTS_MAX_CHARS ? toCompacted(serialized) : value;
}

function compactResult(result: unknown): unknown {
  const serialized = serialize(result);
  return codePointLength(serialized) > RESULT_MAX_CHARS
    ? toCompacted(serialized, summarizeToolResult(result))
    : result;
}

function serialize(value: unknown): string {
  return typeof value === 'string' ? value : safeJsonStringify(value);
}

function isCodeKey(key: string): boolean {
  return CODE_KEYS.has(key.toLowerCase().replace(/[_-]/g, ''));
}

/** Returns the same reference when nothing changed, so callers can tell. */
function omitCode(value: unknown, key: string | null, ancestors: unknown[]): unknown {
  if (typeof value === 'string') {
    const chars = codePointLength(value);
    return key !== null && isCodeKey(key) && chars > CODE_ARGUMENT_MAX_CHARS
      ? `[${key} omitted: ${chars} chars; full value remains in L5]`
      : value;
  }
  if (typeof value !== 'object' || value === null || ancestors.includes(value)) return value;
  const inner = [...ancestors, value];
  if (Array.isArray(value)) {
    // A command given as an argv array is still the command.
    const items = value.map((item: unknown) => omitCode(item, key, inner));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (!isPlainRecord(value)) return value;
  const entries = Object.entries(value).map(([k, v]) => [k, omitCode(v, k, inner)] as const);
  return entries.some(([k, v]) => v !== value[k]) ? Object.fromEntries(entries) : value;
}

function toCompacted(serialized: string, summary?: string): CompactedValue | string {
  const chars = Array.from(serialized);
  const head = Math.max(160, Math.floor(chars.length * 0.48));
  const tail = Math.max(80, Math.floor(chars.length * 0.2));
  if (head + tail >= chars.length) return serialized;
  return {
    originalChars: chars.length,
    ...(summary === undefined ? {} : { summary }),
    head: chars.slice(0, head).join(''),
    tail: chars.slice(chars.length - tail).join(''),
    omittedChars: chars.length - head - tail,
  };
}
