// Our Lua scripts, one file each in lua/ (as BullMQ keeps its
// commands/*.lua), each one atomic step in Redis. A file named `…-N.lua`
// takes N keys, declared beside it so a caller passes just keys and
// arguments; one without a count takes as many keys as its caller passes
// (its first lines say which). A line `--- @include "name"` is replaced by
// lua/includes/<name>.lua. The build copies lua/ beside the compiled code.
import { readdirSync, readFileSync } from 'node:fs';

import type { Redis } from 'ioredis';

const DIR = new URL('./lua/', import.meta.url);
const INCLUDE = /^([ \t]*)--- @include "([\w-]+)"$/gm;

/** The text of lua/includes/<name>.lua. */
function luaInclude(name: string): string {
  return readFileSync(new URL(`includes/${name}.lua`, DIR), 'utf8').trimEnd();
}

export interface LuaScript {
  /** The script with its includes in place. */
  lua: string;
  /** Keys it takes, from its name; undefined: as many as the caller passes. */
  numberOfKeys: number | undefined;
}

/** Script `file` of lua/, its includes in place; `instead` gives other text for some includes (a test's clock). */
export function luaScript(file: string, instead: Readonly<Record<string, string>> = {}): LuaScript {
  const expand = (text: string): string =>
    text.replace(INCLUDE, (_, indent: string, name: string) => indented(instead[name] ?? expand(luaInclude(name)), indent));
  const lua = expand(readFileSync(new URL(file, DIR), 'utf8'));
  const count = /-(\d+)\.lua$/.exec(file)?.[1];
  return { lua, numberOfKeys: count === undefined ? undefined : Number(count) };
}

function indented(text: string, indent: string): string {
  return text.replace(/^/gm, indent);
}

/** Every script file of lua/ (not the includes). */
export function luaScriptFiles(): string[] {
  return readdirSync(DIR)
    .filter((file) => file.endsWith('.lua'))
    .sort();
}

/** Defines script `file` as command `name` on `redis` (ioredis loads it with EVALSHA, falling back to EVAL). */
export function defineLua(redis: Redis, name: string, file: string): void {
  const { lua, numberOfKeys } = luaScript(file);
  redis.defineCommand(name, numberOfKeys === undefined ? { lua } : { lua, numberOfKeys });
}
