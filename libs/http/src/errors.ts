/** One failed field of a request: where (`in`), which (`path`, a JSON pointer) and why. */
export interface ErrorIssue {
  in?: 'body' | 'params' | 'querystring' | 'headers' | 'url';
  path: string;
  message: string;
}

/** Errors with a stable `code`, mapped to an HTTP status in one place (`errorReply`). */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly issues?: ErrorIssue[],
  ) {
    super(message);
  }
}

export const notFound = (what: string, id: string) =>
  new AppError(404, `${what}_not_found`, `${what.replace(/_/g, ' ')} '${id}' was not found`);

export const conflict = (code: string, message: string, details?: unknown) =>
  new AppError(409, code, message, details);

export const unauthorized = (message = 'missing or invalid API key') =>
  new AppError(401, 'unauthorized', message);

/** A request that fails validation: 400 `invalid_request`, each failed field in `issues`. */
export const invalidRequest = (message: string, issues: ErrorIssue[]) =>
  new AppError(400, 'invalid_request', message, undefined, issues);
