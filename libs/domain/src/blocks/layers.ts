import { dropFillers } from './fillers.ts';
import type { LayerMessage, LayerToolCall } from './layer-message.ts';
import { dedupePastes } from './paste-dedupe.ts';
import { safeJsonStringify } from './safe-json.ts';
import { estimateTokens } from './tokens.ts';
import {
  displayToolName,
  guessToolNames,
  looksLikeRawToolCall,
  parseToolJson,
  renderToolCallLine,
  summarizeToolResult,
} from './tool-summary.ts';

/*
 * Transcript format shared by L3, L4 and L5 (MM-BLK-6/8/9):
 * - one entry per message, in block order: `<label>: <text>` (the text may span lines), then one
 *   line per tool trace of that message;
 * - entries are separated by exactly one blank line ("\n\n");
 * - L5 labels with the raw role (`user: `), keeps content verbatim (even when empty) and writes
 *   each trace as `Tool call (raw): <trace JSON>`;
 * - L4/L3 label `User:`, `Assistant:`, `Tool:`; a trace is `Tool call: <name> (<result summary>)`;
 *   an entry without text shows only its trace lines, and one with neither is left out.
 */

const ENTRY_SEPARATOR = '\n\n';

type TranscriptRole = Exclude<LayerMessage['role'], 'system'>;

interface TranscriptEntry {
  role: TranscriptRole;
  body: string;
  traceLines: string[];
  /** True when the body is message text as written (not a rendered tool summary). */
  verbatim: boolean;
}

export function renderL5(messages: LayerMessage[]): string {
  return messages
    .map((message) =>
      [
        `${message.role}: ${message.content}`,
        ...(message.toolCalls ?? []).map((call) => `Tool call (raw): ${safeJsonStringify(call)}`),
      ].join('\n'),
    )
    .join(ENTRY_SEPARATOR);
}

export function renderL4(messages: LayerMessage[]): string {
  return renderEntries(l4Entries(messages));
}

/** MM-BLK-9: L4's entries with fillers, raw tool-call text and repeated pastes removed. */
export function renderL3(messages: LayerMessage[]): string {
  const entries = l4Entries(messages).map(condense);
  // Rendered tool summaries are not pastes; an empty string is never a dedupe candidate.
  const deduped = dedupePastes(entries.map((entry) => (entry.verbatim ? entry.body : '')));
  return renderEntries(
    entries.map((entry, index) =>
      entry.verbatim ? { ...entry, body: deduped[index] ?? entry.body } : entry,
    ),
  );
}

export interface BlockLayers {
  l3: string;
  l4: string;
  l5: string;
  tokens: { l3: number; l4: number; l5: number };
}

/** MM-BLK-14: the guards make est(L3) <= est(L4) <= est(L5) hold for every block. */
export function deriveLayers(messages: LayerMessage[]): BlockLayers {
  const l5 = renderL5(messages);
  const l5Tokens = estimateTokens(l5);
  let l4 = renderL4(messages);
  let l4Tokens = estimateTokens(l4);
  if (l4Tokens > l5Tokens) {
    l4 = l5;
    l4Tokens = l5Tokens;
  }
  let l3 = renderL3(messages);
  let l3Tokens = estimateTokens(l3);
  if (l3Tokens > l4Tokens) {
    l3 = l4;
    l3Tokens = l4Tokens;
  }
  return { l3, l4, l5, tokens: { l3: l3Tokens, l4: l4Tokens, l5: l5Tokens } };
}

function traceLine(call: LayerToolCall): string {
  return renderToolCallLine([displayToolName(call.name)], summarizeToolResult(call.result));
}

/** MM-BLK-8: system messages dropped, user/assistant trimmed, tool JSON summarised. */
function l4Entries(messages: LayerMessage[]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  for (const message of messages) {
    const traceLines = (message.toolCalls ?? []).map(traceLine);
    const role = message.role;
    switch (role) {
      case 'system':
        break;
      case 'user':
      case 'assistant':
        entries.push({ role, body: message.content.trim(), traceLines, verbatim: true });
        break;
      case 'tool': {
        const parsed = parseToolJson(message.content);
        entries.push(
          parsed === null
            ? { role, body: blankToEmpty(message.content), traceLines, verbatim: true }
            : {
                role,
                body: renderToolCallLine(parsed.names, parsed.summary),
                traceLines,
                verbatim: false,
              },
        );
        break;
      }
      default: {
        const unreachable: never = role;
        throw new Error(`unknown message role: ${String(unreachable)}`);
      }
    }
  }
  return entries;
}

function condense(entry: TranscriptEntry): TranscriptEntry {
  switch (entry.role) {
    case 'user':
    case 'assistant':
      return { ...entry, body: blankToEmpty(dropFillers(entry.body)) };
    case 'tool':
      // MM-BLK-10, L3 only: a raw call we could not parse still must not leak its arguments.
      return entry.verbatim && looksLikeRawToolCall(entry.body)
        ? {
            ...entry,
            body: renderToolCallLine(guessToolNames(entry.body), 'raw arguments omitted'),
            verbatim: false,
          }
        : entry;
    default: {
      const unreachable: never = entry.role;
      throw new Error(`unknown message role: ${String(unreachable)}`);
    }
  }
}

function blankToEmpty(text: string): string {
  return text.trim() === '' ? '' : text;
}

function label(role: TranscriptRole): string {
  switch (role) {
    case 'user':
      return 'User';
    case 'assistant':
      return 'Assistant';
    case 'tool':
      return 'Tool';
    default: {
      const unreachable: never = role;
      throw new Error(`unknown message role: ${String(unreachable)}`);
    }
  }
}

function renderEntries(entries: TranscriptEntry[]): string {
  return entries
    .map((entry) =>
      [
        ...(entry.body === '' ? [] : [`${label(entry.role)}: ${entry.body}`]),
        ...entry.traceLines,
      ].join('\n'),
    )
    .filter((text) => text !== '')
    .join(ENTRY_SEPARATOR);
}
