/** Errors with a stable `code`, mapped to an HTTP status in one place (the error handler). */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
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
