// JSON Schema as the documents publish it. zod 4 spells a nullable string
// `type: ["string", "null"]`, which clients that read `type` as one string
// (several MCP clients, OpenAPI tooling) reject or misread; every schema we
// publish spells it `anyOf: [{type: "string"}, {type: "null"}]` instead.

/** A JSON value; a JSON Schema is one. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

type JsonObject = { [key: string]: JsonValue };

/** Keywords whose value is one schema, a list of schemas, or a map of names to schemas. */
const ONE_SCHEMA = new Set([
  'items',
  'additionalProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);
const SCHEMA_LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SCHEMA_MAP = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

const isObject = (value: JsonValue): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

const mapValues = (map: JsonValue, f: (value: JsonValue) => JsonValue): JsonValue =>
  isObject(map) ? Object.fromEntries(Object.entries(map).map(([key, value]) => [key, f(value)])) : map;

/**
 * `schema` with every `type` array, in it and in its subschemas, spelled as
 * an `anyOf` of single types. Returns a new value; `schema` is untouched.
 */
export function withoutTypeArrays(schema: JsonValue): JsonValue {
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && Array.isArray(value)) {
      if ('anyOf' in schema) throw new Error('a schema with both a type array and anyOf');
      out.anyOf = value.map((type) => ({ type }));
    } else if (ONE_SCHEMA.has(key)) out[key] = withoutTypeArrays(value);
    else if (SCHEMA_LIST.has(key) && Array.isArray(value)) out[key] = value.map(withoutTypeArrays);
    else if (SCHEMA_MAP.has(key)) out[key] = mapValues(value, withoutTypeArrays);
    else out[key] = value;
  }
  return out;
}
