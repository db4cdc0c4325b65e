#!/usr/bin/env node
// `npx assisted` in a checkout after `npm install`: the CLI from its TypeScript sources, through
// tsx, with no build step. `npm run build:cli` makes dist/assisted.mjs, one file to take elsewhere.
import { register } from 'tsx/esm/api';

register();
await import('../main.ts');
