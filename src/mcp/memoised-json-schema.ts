// The SDK builds a server per request (stateless serving) and converts each
// tool's zod schemas to JSON Schema for every one of them: a tool call paid
// for a zod-to-JSON-Schema conversion of the whole output schema, the
// largest single cost of serving MCP. The conversion never changes, so it is
// made once per schema and option set, deeply frozen and shared: the SDK
// reads it on every tool call (a copy of the 79 KB output schema each time
// was most of a call's CPU), and a frozen object makes any write to it throw
// rather than leak into the next caller's. It spells nullable fields as
// `anyOf`, as every schema we publish does.
import type * as z from 'zod';

import { type JsonValue, withoutTypeArrays } from '../api/json-schema.js';

type Convert = (options: { target: string; libraryOptions?: Record<string, unknown> }) => Record<string, unknown>;

function deepFreeze(value: JsonValue): JsonValue {
  if (typeof value === 'object' && value !== null) for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value) as JsonValue;
}

/** `schema`, whose standard JSON Schema conversions are memoised (it is changed in place and returned). */
export function memoiseJsonSchema<T extends z.ZodType>(schema: T): T {
  const standard = schema['~standard'];
  const cache = new Map<string, Record<string, unknown>>();
  const memoised =
    (io: 'input' | 'output', convert: Convert): Convert =>
    (options) => {
      const key = `${io} ${JSON.stringify(options)}`;
      let converted = cache.get(key);
      if (converted === undefined) cache.set(key, (converted = deepFreeze(withoutTypeArrays(convert(options) as JsonValue)) as Record<string, unknown>));
      return converted;
    };
  // zod's `~standard` has a setter for exactly this: an own value replaces the prototype's getter.
  (schema as { '~standard': unknown })['~standard'] = {
    ...standard,
    jsonSchema: { input: memoised('input', standard.jsonSchema.input), output: memoised('output', standard.jsonSchema.output) },
  };
  return schema;
}
