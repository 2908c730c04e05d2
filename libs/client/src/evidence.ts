import type { OperationId } from './generated/operations.ts';
import type { ClientBody, OperationOutput } from './operation-types.ts';
import type { StrataGate } from './client.ts';

/** The searches that open an evidence batch an agent then judges. */
export type SearchOperation = Extract<
  OperationId,
  'searchEvents' | 'searchGraph' | 'searchRawMessages'
>;

/** What the caller's judge decides after reading a batch. */
export interface Judgement<A> {
  /** `sufficient` only when the refs below answer the question. */
  verdict: 'sufficient' | 'partial' | 'wrong';
  /** The refs of the batch that support the verdict (at most 8). */
  evidenceRefs: string[];
  /** How the evidence fits the question (a sentence). */
  fit: string;
  /** What is still missing (for partial or wrong). */
  missing?: string;
  /** For partial or wrong: what the agent would do next. Ignored when sufficient. */
  nextStrategy?: Exclude<OperationOutput<'assessEvidence'>['nextStrategy'], 'answer'>;
  /** The answer, when the agent gives one. */
  answer?: A;
  /**
   * The refs the answer used, to adopt (default: the accepted `evidenceRefs` when the
   * assessment is sufficient; none otherwise).
   */
  usedRefs?: string[];
}

export interface AnswerWithEvidenceOptions<A, S extends SearchOperation = 'searchEvents'> {
  spaceId: string;
  threadId: string;
  /** Which search opens the batch (default `searchEvents`). */
  search?: S;
  /** The search request, e.g. `{ query: 'Atlas package manager' }`. */
  body: ClientBody<S>;
  /** Reads what was found and judges it; may call a model. */
  judge: (found: OperationOutput<S>) => Judgement<A> | Promise<Judgement<A>>;
  /** The adoption's receipt id, stable per agent call (default: a fresh id). */
  receiptId?: string;
}

export interface Answered<A, S extends SearchOperation = 'searchEvents'> {
  answer: A | undefined;
  found: OperationOutput<S>;
  assessment: OperationOutput<'assessEvidence'>;
  adoption: OperationOutput<'adoptEvidence'>;
}

/** search → judge → assess → adopt; see `StrataGate.answerWithEvidence`. */
export async function answerWithEvidence<A, S extends SearchOperation = 'searchEvents'>(
  client: StrataGate,
  options: AnswerWithEvidenceOptions<A, S>,
): Promise<Answered<A, S>> {
  const { spaceId, threadId } = options;
  const search: SearchOperation = options.search ?? 'searchEvents';
  const found = (await client.call(search, {
    spaceId,
    threadId,
    body: options.body as never,
  })) as OperationOutput<S>;
  const { batchId } = found as OperationOutput<SearchOperation>;
  const judgement = await options.judge(found);
  const sufficient = judgement.verdict === 'sufficient';
  const assessment = await client.call('assessEvidence', {
    spaceId,
    threadId,
    body: {
      batchId,
      verdict: judgement.verdict,
      evidence_refs: judgement.evidenceRefs,
      fit: judgement.fit,
      missing: sufficient ? '' : (judgement.missing ?? ''),
      next_strategy: sufficient ? 'answer' : (judgement.nextStrategy ?? 'search_events'),
    },
  });
  // Only a sufficient assessment's refs may be adopted (the server refuses others with 422);
  // otherwise the batch is closed with none, so no unresolved batch is left behind the answer.
  const used =
    assessment.verdict === 'sufficient' ? (judgement.usedRefs ?? assessment.evidenceRefs) : [];
  const adoption = await client.call('adoptEvidence', {
    spaceId,
    threadId,
    body: {
      batchId,
      evidence_refs: used,
      ...(options.receiptId ? { receiptId: options.receiptId } : {}),
    },
  });
  return { answer: judgement.answer, found, assessment, adoption };
}
