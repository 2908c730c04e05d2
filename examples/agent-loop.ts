/**
 * A minimal agent loop on StrataGate, with the TypeScript client: for each user message, recall
 * the memory's background, call the model, and post the finished turn; when a question needs
 * the past, search, let the model judge what was found, and adopt what the answer used. The
 * model is a function, so any chat API fits; `node --import tsx examples/agent-loop.ts` runs
 * it against a server with a stand-in model (set STRATAGATE_URL and STRATAGATE_API_KEY).
 */
import {
  NotFoundError,
  StrataGate,
  type Judgement,
  type OperationOutput,
} from '@stratagate/client';

/** A chat model: a system prompt and a user message in, a reply out. */
export type Model = (system: string, user: string) => Promise<string>;

/** A session of the conversation: its id and its user messages, in order. */
export interface Session {
  threadId: string;
  messages: string[];
}

type Found = OperationOutput<'searchEvents'>;

/** One user message answered: recall → model → record the turn. */
async function reply(
  sg: StrataGate,
  model: Model,
  spaceId: string,
  threadId: string,
  text: string,
) {
  // A space exists from its first turn on: before that there is nothing to recall.
  const contextText = await sg
    .call('recall', { spaceId, threadId, body: { message: text } })
    .then((recall) => recall.contextText)
    .catch((error: unknown) => {
      if (error instanceof NotFoundError && error.code === 'space_not_found') return '';
      throw error;
    });
  const answer = await model(contextText, text);
  await sg.call('recordTurn', {
    spaceId,
    body: {
      threadId,
      messages: [
        { role: 'user', content: text },
        { role: 'assistant', content: answer },
      ],
    },
  });
  return answer;
}

/**
 * A question answered from memory with the evidence gate: the model reads the hits and says
 * which one answers (or none); only that one is adopted, so only it is strengthened.
 */
export async function answerFromMemory(
  sg: StrataGate,
  model: Model,
  spaceId: string,
  threadId: string,
  question: string,
) {
  const judge = async (found: Found): Promise<Judgement<string>> => {
    const listing = found.hits.map((h) => `${h.ref}: ${h.summary}`).join('\n');
    const choice = (
      await model(`Which ref answers? Reply with the ref or "none".`, listing)
    ).trim();
    if (!found.evidenceRefs.includes(choice)) {
      return { verdict: 'partial', evidenceRefs: [], fit: '', missing: question };
    }
    const hit = found.hits.find((h) => h.ref === choice)!;
    return { verdict: 'sufficient', evidenceRefs: [choice], fit: hit.title, answer: hit.summary };
  };
  return sg.answerWithEvidence({ spaceId, threadId, body: { query: question }, judge });
}

/** Runs the sessions one after another, closing each, then waits until memory is made. */
export async function runConversation(
  sg: StrataGate,
  model: Model,
  spaceId: string,
  sessions: Session[],
) {
  for (const { threadId, messages } of sessions) {
    for (const text of messages) await reply(sg, model, spaceId, threadId, text);
    await sg.call('closeThread', { spaceId, threadId });
  }
  return sg.waitUntilSettled(spaceId);
}

/** A stand-in model: acknowledges, and as a judge picks the first ref whose line has a word. */
export function standInModel(word: RegExp): Model {
  return async (system, user) => {
    if (!system.startsWith('Which ref')) return 'Noted.';
    const line = user.split('\n').find((l) => word.test(l));
    return line ? line.slice(0, line.indexOf(': ')) : 'none';
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sg = new StrataGate({
    baseUrl: process.env.STRATAGATE_URL ?? 'http://127.0.0.1:8787',
    apiKey: process.env.STRATAGATE_API_KEY ?? '',
  });
  const model = standInModel(/pnpm/i);
  await runConversation(sg, model, 'example', [
    { threadId: 'monday', messages: ['Our project Atlas uses npm.', 'We switched Atlas to pnpm.'] },
  ]);
  const { answer, adoption } = await answerFromMemory(
    sg,
    model,
    'example',
    'tuesday',
    'Which package manager does Atlas use?',
  );
  console.log(answer, `(reinforced ${adoption.incremented})`);
}
