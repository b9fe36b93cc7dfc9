// Where settings come from: the defaults, then a JSON config file, then
// SELFSCAN_* environment variables, then command-line flags; later ones win.
// Each setting's variable and flag are derived from the schema.
import { readFileSync } from 'node:fs';

import * as z from 'zod';

import { type Config, configSchema, type SettingMeta } from './config.js';
import { envName } from './serve-flags.js';

/** A configuration value that is not usable; the message says which and why. */
export class ConfigError extends Error {}

/** One setting: where it sits in the config, how it is set, and its schema. */
export interface Setting {
  path: string[];
  /** The environment variable that sets it, e.g. SELFSCAN_LIMITS_EDGE_MAX. */
  env: string;
  meta: SettingMeta;
  /** The setting's schema without its default or optional wrapper. */
  schema: z.ZodType;
  defaultValue: unknown;
}

type Env = Record<string, string | undefined>;
type Json = Record<string, unknown>;

function unwrap(schema: z.ZodType): z.ZodType {
  const { def } = schema._zod;
  return def.type === 'default' || def.type === 'prefault' || def.type === 'optional' ? unwrap((def as unknown as { innerType: z.ZodType }).innerType) : schema;
}

function defaultOf(schema: z.ZodType): unknown {
  const { def } = schema._zod;
  return def.type === 'default' ? (def as unknown as { defaultValue: unknown }).defaultValue : undefined;
}

function collect(schema: z.ZodType, path: string[], out: Setting[]): Setting[] {
  const inner = unwrap(schema);
  const meta = z.globalRegistry.get(schema) as SettingMeta | undefined;
  if (inner instanceof z.ZodObject && meta === undefined) {
    for (const [key, child] of Object.entries(inner.shape)) collect(child as z.ZodType, [...path, key], out);
  } else {
    if (meta === undefined) throw new Error(`setting ${path.join('.')} has no description`);
    out.push({ path, env: envName(path), meta, schema: inner, defaultValue: defaultOf(schema) });
  }
  return out;
}

/** Every setting, in the schema's order. */
export const SETTINGS: readonly Setting[] = collect(configSchema, [], []);

/** What the command line gave, by flag name without the dashes (e.g. `data-dir`). */
export type ConfigFlags = Record<string, string | boolean | undefined>;

function setAt(target: Json, path: readonly string[], value: unknown): void {
  let at = target;
  for (const key of path.slice(0, -1)) {
    const next = at[key];
    at = at[key] = typeof next === 'object' && next !== null && !Array.isArray(next) ? { ...(next as Json) } : {};
  }
  at[path.at(-1)!] = value;
}

const YES = new Set(['1', 'true', 'yes', 'on']);
const NO = new Set(['0', 'false', 'no', 'off']);

/** The value of `text` (from the environment or a flag) for a setting of this schema. */
function fromText(schema: z.ZodType, text: string, source: string): unknown {
  if (schema instanceof z.ZodBoolean) {
    const word = text.trim().toLowerCase();
    if (YES.has(word)) return true;
    if (NO.has(word)) return false;
    throw new ConfigError(`${source} must be 1/true/yes or 0/false/no, got ${JSON.stringify(text)}`);
  }
  if (schema instanceof z.ZodNumber) return text.trim() === '' ? Number.NaN : Number(text);
  if (schema instanceof z.ZodArray) {
    const items = text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    return items.map((item) => fromText(unwrap((schema as z.ZodArray<z.ZodType>).element), item, source));
  }
  return text;
}

function readConfigFile(path: string): Json {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${path} must hold a JSON object`);
  }
  return parsed as Json;
}

/** Where the value at `path` came from, for an error message. */
function sourceOf(path: readonly PropertyKey[], env: Env, flags: ConfigFlags, file: string | undefined): string {
  const setting = SETTINGS.find((s) => s.path.every((key, i) => path[i] === key));
  if (setting?.meta.flag !== undefined && flags[setting.meta.flag.slice(2)] !== undefined) return setting.meta.flag;
  if (setting !== undefined && env[setting.env] !== undefined) return setting.env;
  return file === undefined ? 'the defaults' : `config file ${file}`;
}

/**
 * The effective configuration from the config file (`flags.config`, else
 * SELFSCAN_CONFIG), the environment and the flags. Throws ConfigError for
 * anything unusable.
 */
export function loadConfig(flags: ConfigFlags = {}, env: Env = process.env): Config {
  const file = (flags.config as string | undefined) ?? env.SELFSCAN_CONFIG;
  const input = file === undefined ? {} : readConfigFile(file);
  for (const setting of SETTINGS) {
    const text = env[setting.env];
    if (text !== undefined) setAt(input, setting.path, fromText(setting.schema, text, setting.env));
  }
  for (const setting of SETTINGS) {
    const given = setting.meta.flag === undefined ? undefined : flags[setting.meta.flag.slice(2)];
    if (given === undefined) continue;
    setAt(input, setting.path, typeof given === 'boolean' ? given : fromText(setting.schema, given, setting.meta.flag!));
  }
  const parsed = configSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const where = issue.path.join('.') || '(config)';
    return `${where} (${sourceOf(issue.path, env, flags, file)}): ${issue.message}`;
  });
  throw new ConfigError(problems.join('; '));
}
