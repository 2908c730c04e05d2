import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.ts';
import { operationIndex, type OperationId } from './generated/operations.ts';
import type { InputArgs, OperationInput, OperationOutput } from './operation-types.ts';
import type { StrataGateError } from './errors.ts';
import {
  ConnectionError,
  errorFromAnswer,
  NotFoundError,
  ServerError,
  SettleTimeoutError,
} from './errors.ts';
import {
  answerWithEvidence,
  type AnswerWithEvidenceOptions,
  type Answered,
  type SearchOperation,
} from './evidence.ts';

export interface StrataGateOptions {
  /** The API root, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** An API key (`sg_…`); every /v1 call sends it as `Authorization: Bearer`. */
  apiKey: string;
  /** The fetch to send requests with (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /**
   * How often a call that was not carried out is sent again (default 2): no answer, 503, 408,
   * or 409 `version_conflict`. Without an answer, only reads and writes with an idempotency key
   * are sent again, since the first one may have been carried out.
   */
  retries?: number;
  /** The wait before the first retry, doubled before each further one (default 250 ms). */
  retryDelayMs?: number;
  /** Makes the ids the client fills in for idempotency fields (default: random UUIDs). */
  newId?: () => string;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

export interface WaitOptions {
  /** Give up after this long (default 60 s) with a `SettleTimeoutError`. */
  timeoutMs?: number;
  /** Time between status reads (default 200 ms). */
  intervalMs?: number;
  signal?: AbortSignal;
}

export type SpaceStatus = OperationOutput<'getSpaceStatus'>;

const JSON_TYPE = 'application/json';

/** fetch itself failed: no HTTP answer arrived. */
class NoAnswer extends Error {
  constructor(override readonly cause: unknown) {
    super('no answer');
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * A client of the StrataGate API. `call(operationId, input)` reaches every operation of the
 * API, typed from its OpenAPI document; `api` is the underlying openapi-fetch client, by path.
 */
export class StrataGate {
  /** The openapi-fetch client: `api.POST('/v1/spaces/{spaceId}/turns', { params, body })`. */
  readonly api: Client<paths>;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly newId: () => string;

  constructor(options: StrataGateOptions) {
    if (!options.apiKey) throw new TypeError('StrataGate: apiKey is required');
    const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${options.apiKey}` },
      // Failures of fetch itself are told apart from an answer that cannot be read.
      fetch: async (request: Request) => {
        try {
          return await send(request);
        } catch (cause) {
          throw new NoAnswer(cause);
        }
      },
    });
    this.retries = options.retries ?? 2;
    this.retryDelayMs = options.retryDelayMs ?? 250;
    this.newId = options.newId ?? (() => globalThis.crypto.randomUUID());
  }

  /** The operations this client can call, by operationId, with their method and path. */
  static readonly operations = operationIndex;

  /**
   * Calls one operation by its operationId. Path and query parameters go by name beside `body`.
   * A write whose body has an idempotency field (`turnId`, `requestId`, `receiptId`) gets a
   * fresh id when it is left out, and keeps it when the call is sent again. Throws a
   * `StrataGateError` subclass for every answer that is not a success.
   */
  async call<K extends OperationId>(
    operationId: K,
    ...args: [...InputArgs<K>, options?: CallOptions]
  ): Promise<OperationOutput<K>> {
    const input = args[0] as OperationInput<K> | undefined;
    const options = args[1] as CallOptions | undefined;
    const op = operationIndex[operationId];
    if (!op) throw new TypeError(`StrataGate: no operation '${String(operationId)}'`);
    const { body, ...named } = (input ?? {}) as OperationInput<K> & Record<string, unknown>;
    const path: Record<string, unknown> = {};
    const query: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(named)) {
      if ((op.pathParams as readonly string[]).includes(name)) path[name] = value;
      else if ((op.queryParams as readonly string[]).includes(name)) query[name] = value;
      else throw new TypeError(`StrataGate: ${operationId} takes no parameter '${name}'`);
    }
    const missing = op.pathParams.filter((name) => path[name] === undefined);
    if (missing.length > 0) {
      throw new TypeError(`StrataGate: ${operationId} needs ${missing.join(', ')}`);
    }
    let sent = body as Record<string, unknown> | string | undefined;
    const field = op.idempotencyField;
    if (field && typeof sent === 'object' && sent[field] === undefined) {
      sent = { ...sent, [field]: this.newId() };
    }
    const raw = op.requestType !== null && op.requestType !== JSON_TYPE;
    // Without an answer the request may have been carried out: only send again what is safe.
    const resendable = op.method === 'GET' || op.method === 'PUT' || field !== null;

    for (let attempt = 0; ; attempt++) {
      let error: StrataGateError;
      try {
        const {
          data,
          error: answer,
          response,
        } = await this.api.request(
          op.method as never,
          op.path as never,
          {
            params: { path, query },
            ...(sent !== undefined ? { body: sent } : {}),
            // A file (e.g. an NDJSON export) goes and comes as text, not JSON.
            ...(raw ? { bodySerializer: (text: unknown) => text } : {}),
            parseAs: op.responseType === JSON_TYPE || op.responseType === null ? 'json' : 'text',
            headers: { ...(raw ? { 'content-type': op.requestType } : {}), ...options?.headers },
            ...(options?.signal ? { signal: options.signal } : {}),
          } as never,
        );
        if (response.ok) return data as OperationOutput<K>;
        error = errorFromAnswer(response.status, answer, operationId);
      } catch (thrown) {
        if (options?.signal?.aborted) throw thrown;
        if (!(thrown instanceof NoAnswer)) {
          // An answer came but could not be read as its operation says (e.g. a proxy's page).
          throw new ServerError(
            0,
            'unexpected_response',
            `the answer could not be read: ${(thrown as Error)?.message ?? String(thrown)}`,
            [],
            undefined,
            operationId,
            { cause: thrown },
          );
        }
        const cause = thrown.cause;
        error = new ConnectionError(
          0,
          'connection_failed',
          `no answer from the API: ${(cause as Error)?.message ?? String(cause)}`,
          [],
          undefined,
          operationId,
          { cause },
        );
      }
      const again = error.retryable && (error.kind !== 'connection' || resendable);
      if (!again || attempt >= this.retries) throw error;
      await sleep(this.retryDelayMs * 2 ** attempt, options?.signal);
    }
  }

  /**
   * Waits until the space is settled: projection has caught up with everything written to it
   * and every derivation job (summaries, memory events, graph) is final. A space whose first
   * records are not visible yet is waited for too; it is reported not found only at the end.
   */
  async waitUntilSettled(spaceId: string, options: WaitOptions = {}): Promise<SpaceStatus> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const intervalMs = options.intervalMs ?? 200;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let last: SpaceStatus | NotFoundError;
      try {
        last = await this.call('getSpaceStatus', { spaceId }, { signal: options.signal });
        if (last.settled) return last;
      } catch (error) {
        if (!(error instanceof NotFoundError && error.code === 'space_not_found')) throw error;
        last = error;
      }
      if (Date.now() + intervalMs > deadline) {
        if (last instanceof NotFoundError) throw last;
        throw new SettleTimeoutError(
          0,
          'settle_timeout',
          `space '${spaceId}' did not settle within ${timeoutMs} ms`,
          [],
          last,
          'getSpaceStatus',
        );
      }
      await sleep(intervalMs, options.signal);
    }
  }

  /**
   * The evidence gate's common case in one call: search, let `judge` read what was found and
   * answer, assess the batch with its judgement, and adopt the refs the answer used (or close
   * the batch with none when the evidence was not sufficient).
   */
  answerWithEvidence<A, S extends SearchOperation = 'searchEvents'>(
    options: AnswerWithEvidenceOptions<A, S>,
  ): Promise<Answered<A, S>> {
    return answerWithEvidence(this, options);
  }
}
