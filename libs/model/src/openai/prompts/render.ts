import type { TimelineEntry } from '../../extraction.schema.ts';
import type { SummaryMessage } from '../../model-port.ts';

/**
 * Rendering of model inputs as tagged text. Tags (rather than JSON) keep long free text readable
 * for the model while making every message's id, role, speaker and timestamp unambiguous;
 * a closing tag inside content is defused so a message cannot end its own frame early.
 */

function defuse(text: string, tag: string): string {
  return text.replaceAll(`</${tag}>`, `<\\/${tag}>`);
}

function attribute(name: string, value: string): string {
  return `${name}="${value.replaceAll('"', '&quot;')}"`;
}

function renderToolCall(call: NonNullable<SummaryMessage['toolCalls']>[number]): string {
  const parts = [`tool call: ${call.name}`];
  if (call.arguments !== undefined) parts.push(`  arguments: ${JSON.stringify(call.arguments)}`);
  if (call.result !== undefined) parts.push(`  result: ${JSON.stringify(call.result)}`);
  return parts.join('\n');
}

export function renderMessage(message: SummaryMessage): string {
  const attrs = [
    attribute('id', message.messageId),
    attribute('role', message.role),
    ...(message.name ? [attribute('name', message.name)] : []),
    attribute('at', message.occurredAt),
  ];
  const body = [message.content, ...(message.toolCalls ?? []).map(renderToolCall)]
    .filter((part) => part.trim() !== '')
    .join('\n');
  return `<message ${attrs.join(' ')}>\n${defuse(body, 'message')}\n</message>`;
}

export function renderMessages(messages: SummaryMessage[]): string {
  return messages.length === 0 ? '(no messages)' : messages.map(renderMessage).join('\n');
}

export function renderKeyPoints(
  label: string,
  neighbour: { blockId: string; keyPoints: string[] } | null | undefined,
): string {
  if (!neighbour || neighbour.keyPoints.length === 0) return `<${label}>(none)</${label}>`;
  const points = neighbour.keyPoints.map((p) => `- ${p}`).join('\n');
  return `<${label} ${attribute('block', neighbour.blockId)}>\n${defuse(points, label)}\n</${label}>`;
}

/** One JSON object per line: the entries are structured already and the ids must stay exact. */
export function renderTimeline(timeline: TimelineEntry[]): string {
  if (timeline.length === 0) return '<timeline>(empty: no relations are possible)</timeline>';
  const lines = timeline.map((entry) => JSON.stringify(entry));
  return `<timeline>\n${defuse(lines.join('\n'), 'timeline')}\n</timeline>`;
}
