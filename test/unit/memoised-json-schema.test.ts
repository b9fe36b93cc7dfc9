// MCP tool schemas are converted to JSON Schema once, not per request,
// every caller gets the same frozen conversion (no copy per tool call, and
// no caller can change what the next one reads), and nullable fields come
// out as anyOf, not as type arrays.
import { expect, it, vi } from 'vitest';
import * as z from 'zod';

import { memoiseJsonSchema } from '../../src/mcp/memoised-json-schema.js';

it('converts once per option set and hands every caller the same frozen conversion', () => {
  const define = () => z.strictObject({ rescan: z.boolean().default(false), note: z.string().optional() });
  const expected = define()['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
  const schema = define();
  const convert = vi.spyOn(schema['~standard'].jsonSchema, 'output');
  const memoised = memoiseJsonSchema(schema);

  const first = memoised['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
  const second = memoised['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
  expect(convert).toHaveBeenCalledTimes(1);
  expect(second).toBe(first);
  // A caller writing to it, at any depth, throws instead of changing the next caller's schema.
  expect(() => {
    (first as { properties: Record<string, unknown> }).properties.extra = {};
  }).toThrow(TypeError);
  expect(() => {
    (first as { properties: { rescan: { default: boolean } } }).properties.rescan.default = true;
  }).toThrow(TypeError);
  expect(first).toMatchObject({ type: 'object', properties: { rescan: { type: 'boolean', default: false } } });
  expect(second).toEqual(expected);

  memoised['~standard'].jsonSchema.output({ target: 'draft-07' });
  expect(convert).toHaveBeenCalledTimes(2);
  expect(memoised.parse({})).toEqual({ rescan: false }); // validation is zod's, untouched
});

it('spells a nullable field as anyOf of single types', () => {
  const schema = memoiseJsonSchema(z.strictObject({ banner: z.string().nullable(), port: z.int() }));
  const converted = schema['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
  expect(converted.properties).toEqual({
    banner: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    port: expect.objectContaining({ type: 'integer' }),
  });
});
