export { StrataGate } from './client.ts';
export type { CallOptions, SpaceStatus, StrataGateOptions, WaitOptions } from './client.ts';
export * from './errors.ts';
export type {
  AnswerWithEvidenceOptions,
  Answered,
  Judgement,
  SearchOperation,
} from './evidence.ts';
export type {
  ClientBody,
  InputArgs,
  OperationInput,
  OperationOutput,
  RequestBody,
} from './operation-types.ts';
export { operationIndex, type OperationId } from './generated/operations.ts';
export { errorCodes, type ErrorCode } from './generated/error-codes.ts';
export type { components, operations, paths } from './generated/openapi.ts';
