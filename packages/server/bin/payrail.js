#!/usr/bin/env node
// The `payrail` command: runs the TypeScript CLI in this process through tsx's loader, so its
// exit code and signals are the command's own.
import { register } from 'tsx/esm/api';

register();
await import(new URL('../src/cli.ts', import.meta.url).href);
