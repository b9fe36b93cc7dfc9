// The Lua scripts as files (src/redis/lua/): each compiles in Redis with
// its includes in place; one that declares its key count in its name
// (`…-N.lua`) reads exactly KEYS[1] to KEYS[N]; one that does not reads as
// many as it is given; and every file is defined as a command by the code,
// under the name that file has.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { luaScript, luaScriptFiles } from '../../src/redis/lua-scripts.js';
import { SCAN_STATE_FIELDS } from '../../src/redis/redis-keys.js';
import { redisPerFile } from '../helpers/redis-per-file.js';

const redis = redisPerFile();
const REDIS_SRC = fileURLToPath(new URL('../../src/redis/', import.meta.url));

/** Every `defineLua(redis, name, 'file')` of src/redis/, as file → count of definitions. */
function definedFiles(): Map<string, number> {
  const defined = new Map<string, number>();
  for (const file of readdirSync(REDIS_SRC).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(join(REDIS_SRC, file), 'utf8');
    for (const [, script] of text.matchAll(/defineLua\([^,]+,\s*'[^']+',\s*'([^']+)'\)/g)) defined.set(script!, (defined.get(script!) ?? 0) + 1);
  }
  return defined;
}

/** Where each scan script names the scan state's hash: KEYS[1] of the progress scripts, KEYS[4] of the start and the restore, a prefix and the id in scan-current. */
const STATE_KEY: Readonly<Record<string, string>> = { 'scan-start.lua': 'KEYS[4]', 'scan-restore-4.lua': 'KEYS[4]', 'scan-current-2.lua': 'ARGV[1] .. id' };

/** The fields script `file` names in its hash commands on the scan state (HSET: every other argument; HINCRBY, HSETNX, HGET: the first; HMGET: all). */
function stateFields(file: string): string[] {
  const key = (STATE_KEY[file] ?? 'KEYS[1]').replace(/[[\].]/g, '\\$&');
  const fields: string[] = [];
  for (const [, command, args] of luaScript(file).lua.matchAll(new RegExp(`redis\\.call\\('(H\\w+)', ${key}, ([^)]+)\\)`, 'g'))) {
    const tokens = args!.split(/,\s*/);
    const named = command === 'HSET' ? tokens.filter((_, i) => i % 2 === 0) : command === 'HMGET' ? tokens : tokens.slice(0, 1);
    for (const token of named) {
      expect(token, `${file}: ${command} names a field by a literal`).toMatch(/^'\w+'$/);
      fields.push(token.slice(1, -1));
    }
  }
  return fields;
}

describe('the Lua scripts', () => {
  const files = luaScriptFiles();

  it('are files, each defined as a command by the code, none defined without a file', () => {
    expect(files.length).toBeGreaterThanOrEqual(8);
    const defined = definedFiles();
    expect([...defined.keys()].sort()).toEqual(files);
  });

  it.each(files)('%s compiles in Redis with its includes in place', async (file) => {
    const { lua } = luaScript(file);
    expect(lua).not.toMatch(/@include/);
    const sha = await redis().script('LOAD', lua);
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it("write and read only the declared fields of a scan's state, and every one of them", () => {
    const used = new Set<string>();
    for (const file of files.filter((name) => name.startsWith('scan-'))) {
      for (const field of stateFields(file)) used.add(field);
    }
    expect([...used].sort()).toEqual([...SCAN_STATE_FIELDS].sort());
  });

  it.each(files)('%s reads the keys its name declares', (file) => {
    const { lua, numberOfKeys } = luaScript(file);
    const indexes = [...lua.matchAll(/KEYS\[(\d+)\]/g)].map(([, index]) => Number(index));
    const readsAll = /#KEYS|ipairs\(KEYS\)|gcra_check\(KEYS/.test(lua);
    if (numberOfKeys === undefined) {
      expect(readsAll).toBe(true);
    } else {
      expect(readsAll).toBe(false);
      expect(new Set(indexes)).toEqual(new Set(Array.from({ length: numberOfKeys }, (_, i) => i + 1)));
    }
  });
});
