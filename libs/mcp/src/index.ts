export * from './tools.ts';
export * from './http.ts';
export * from './stdio.ts';
