export * from './errors.ts';
export * from './api-keys.ts';
export * from './app.ts';
export * from './schemas.ts';
export * from './openapi.ts';
export { withRequestContext } from './tracing.ts';
