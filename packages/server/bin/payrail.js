#!/usr/bin/env node
// The `payrail` command: the compiled CLI, in this process, so its exit code and signals are the
// command's own.
await import('../dist/cli.js');
