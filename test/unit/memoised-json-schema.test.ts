// MCP tool schemas are converted to JSON Schema once, not per request,
// every caller still gets a copy of its own, and nullable fields come out
// as anyOf, not as type arrays.
import { expect, it, vi } from 'vitest';
import * as z from 'zod';

import { memoiseJsonSchema } from '../../src/mcp/memoised-json-schema.js';

it('converts once per option set and hands out equal, separate copies', () => {
  const define = () => z.strictObject({ rescan: z.boolean().default(false), note: z.string().optional() });
  const expected = define()['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
  const schema = define();
  const convert = vi.spyOn(schema['~standard'].jsonSchema, 'output');
  const memoised = memoiseJsonSchema(schema);

  const first = memoised['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
  const second = memoised['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
  expect(convert).toHaveBeenCalledTimes(1);
  expect(second).toEqual(first);
  expect(second).not.toBe(first);
  (first as { properties: Record<string, unknown> }).properties.extra = {}; // a caller changing its copy
  expect(memoised['~standard'].jsonSchema.output({ target: 'draft-2020-12' })).toEqual(second);
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
