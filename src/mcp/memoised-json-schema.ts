// The SDK builds a server per request (stateless serving) and converts each
// tool's zod schemas to JSON Schema for every one of them: a tool call paid
// for a zod-to-JSON-Schema conversion of the whole output schema, the
// largest single cost of serving MCP. The conversion never changes, so it is
// made once per schema and option set; each caller gets its own copy. The
// copy spells nullable fields as `anyOf`, as every schema we publish does.
import type * as z from 'zod';

import { type JsonValue, withoutTypeArrays } from '../api/json-schema.js';

type Convert = (options: { target: string; libraryOptions?: Record<string, unknown> }) => Record<string, unknown>;

/** `schema`, whose standard JSON Schema conversions are memoised (it is changed in place and returned). */
export function memoiseJsonSchema<T extends z.ZodType>(schema: T): T {
  const standard = schema['~standard'];
  const cache = new Map<string, Record<string, unknown>>();
  const memoised =
    (io: 'input' | 'output', convert: Convert): Convert =>
    (options) => {
      const key = `${io} ${JSON.stringify(options)}`;
      let converted = cache.get(key);
      if (converted === undefined) cache.set(key, (converted = withoutTypeArrays(convert(options) as JsonValue) as Record<string, unknown>));
      return structuredClone(converted);
    };
  // zod's `~standard` has a setter for exactly this: an own value replaces the prototype's getter.
  (schema as { '~standard': unknown })['~standard'] = {
    ...standard,
    jsonSchema: { input: memoised('input', standard.jsonSchema.input), output: memoised('output', standard.jsonSchema.output) },
  };
  return schema;
}
