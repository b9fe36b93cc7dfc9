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
