import type { operations } from './generated/openapi.ts';
import type { OperationId, operationIndex } from './generated/operations.ts';

/*
 * Each operation's input and answer, read off the generated types by operationId: nothing here
 * names an operation, so a new one on the server is typed here as soon as it is generated.
 */

type Defined<T> = Exclude<T, undefined>;
type IsNever<T> = [T] extends [never] ? true : false;
type Param<K extends OperationId, Where extends 'path' | 'query'> = Defined<
  operations[K]['parameters'][Where]
>;
/** `{}` where a location has no parameters (`never` in the generated types). */
type Part<T> = IsNever<T> extends true ? unknown : T;

type Simplify<T> = { [P in keyof T]: T[P] } & {};

type IdempotencyField<K extends OperationId> = Exclude<
  (typeof operationIndex)[K]['idempotencyField'],
  null
>;

/** A request body's or answer's content: its JSON, else whatever single type it has (text). */
type ContentOf<T> = T extends { content: infer C }
  ? 'application/json' extends keyof C
    ? C['application/json']
    : C[keyof C]
  : never;

/** The request body of an operation as the server takes it (`never` when it takes none). */
export type RequestBody<K extends OperationId> = operations[K] extends { requestBody?: infer R }
  ? ContentOf<Exclude<R, undefined>>
  : never;

/** The request body as the client takes it: the idempotency field may be left out. */
export type ClientBody<K extends OperationId> =
  IsNever<IdempotencyField<K>> extends true
    ? RequestBody<K>
    : Simplify<
        Omit<RequestBody<K>, IdempotencyField<K>> &
          Partial<Pick<RequestBody<K>, IdempotencyField<K> & keyof RequestBody<K>>>
      >;

type BodyPart<K extends OperationId> =
  IsNever<RequestBody<K>> extends true
    ? { body?: never }
    : undefined extends operations[K]['requestBody']
      ? { body?: ClientBody<K> }
      : { body: ClientBody<K> };

/**
 * What a call takes: the path and query parameters by name, side by side, and the JSON body in
 * `body`, e.g. `{ spaceId: 'demo', threadId: 's1', body: { message: '…' } }`.
 */
export type OperationInput<K extends OperationId> = Simplify<
  Part<Param<K, 'path'>> & Part<Param<K, 'query'>> & BodyPart<K>
>;

type Responses<K extends OperationId> = operations[K]['responses'];
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202>;

/** What an operation answers on success: its JSON, or the text of a file it sends. */
export type OperationOutput<K extends OperationId> = {
  [S in SuccessStatus<K>]: ContentOf<Responses<K>[S]>;
}[SuccessStatus<K>];

type RequiredKeys<T> = { [P in keyof T]-?: undefined extends T[P] ? never : P }[keyof T];

/** The input argument: optional where nothing in it is required. */
export type InputArgs<K extends OperationId> =
  IsNever<RequiredKeys<OperationInput<K>>> extends true
    ? [input?: OperationInput<K>]
    : [input: OperationInput<K>];
