// Entry of the background-roles worker thread (background-thread.ts): loads the TypeScript
// sources through tsx, as bin/stratagate.mjs does for the main thread.
import { register } from 'tsx/esm/api';

register();
await import('./background-thread.main.ts');
