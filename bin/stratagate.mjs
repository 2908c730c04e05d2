#!/usr/bin/env node
// Runs the TypeScript sources through tsx's loader, so `npm start` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../libs/runtime/src/cli.ts');
