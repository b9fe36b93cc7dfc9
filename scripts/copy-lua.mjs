#!/usr/bin/env node
// The Redis Lua scripts (src/redis/lua/, read at run time beside the code
// that defines them) copied beside the compiled code in dist/redis/lua/.
import { cpSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const from = fileURLToPath(new URL('../src/redis/lua', import.meta.url));
const to = fileURLToPath(new URL('../dist/redis/lua', import.meta.url));
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
