import type { z } from 'zod';
import type { ChatReply } from './chat-transport.ts';
import type { ChatMessage } from './prompts/prompt-module.ts';

/** Either the validated output or a description of what was wrong, precise enough to fix. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * The JSON text inside a model answer. Reasoning models (DeepSeek-R1, Qwen3 via Ollama) may
 * prepend `<think>…</think>`, and many models wrap JSON in ```json fences even in JSON mode;
 * both are packaging, not an error worth a retry.
 */
export function extractJsonText(answer: string): string {
  const text = answer.replace(/<think>[\s\S]*?<\/think>/gu, '').trim();
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)\n?\s*```/u.exec(text);
  return (fenced?.[1] ?? text).trim();
}

/** Parse and validate one answer against the task's schema. */
export function checkAnswer<S extends z.ZodType>(
  reply: ChatReply,
  schema: S,
): Checked<z.output<S>> {
  const truncated =
    reply.finishReason === 'length'
      ? ' The answer was cut off at the output token limit; answer more briefly.'
      : '';
  const text = extractJsonText(reply.content);
  if (text === '') return { ok: false, problem: `the answer was empty.${truncated}` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: `the answer is not valid JSON (${reason}).${truncated}` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    problem: `the JSON does not match the required schema: ${formatIssues(parsed.error)}`,
  };
}

export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/**
 * The follow-up turn of a structured retry: the model sees its own answer and exactly what was
 * wrong with it (zod paths and messages), which fixes far more answers than asking again blind.
 */
export function correctionTurn(answer: string, problem: string): ChatMessage[] {
  return [
    // Some servers reject an empty assistant turn; the placeholder keeps the history valid.
    { role: 'assistant', content: answer === '' ? '(empty answer)' : answer },
    {
      role: 'user',
      content: `Your previous answer was rejected: ${problem}\nReply again with the complete corrected JSON object only — no explanation and no code fences.`,
    },
  ];
}
