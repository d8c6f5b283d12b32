#!/usr/bin/env node
// The `flightdeck` command: runs the TypeScript CLI through tsx's loader.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';

register();
const { runCliProcess } = await import(fileURLToPath(new URL('../src-main/cli/main.ts', import.meta.url)));
process.exitCode = await runCliProcess(process.argv.slice(2));
