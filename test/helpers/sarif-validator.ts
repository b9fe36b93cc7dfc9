// Validates a SARIF log against the SARIF 2.1.0 JSON schema with ajv.
// test/fixtures/sarif-schema-2.1.0.json is the OASIS schema, errata01 (the
// current 2.1.0 text), unchanged: oasis-tcs/sarif-spec,
// sarif-2.1/schema/sarif-schema-2.1.0.json at commit a560296c (2024-05-02),
// sha256 c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e.
// It is written in draft-04, whose only keyword that differs here is the
// root `id` (draft-07: `$id`); it is renamed when loaded, so ajv's default
// draft-07 validator reads it.
import { readFileSync } from 'node:fs';

import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

const schema = JSON.parse(readFileSync(new URL('../fixtures/sarif-schema-2.1.0.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const { $schema: _draft04, id, ...rest } = schema;
const ajv = new Ajv({ allErrors: true, strict: false });
addFormatsModule.default(ajv);
const validate = ajv.compile({ ...rest, $id: id as string });

/** The schema's complaints about `log`; empty when it is valid SARIF 2.1.0. */
export function sarifErrors(log: unknown): string[] {
  return validate(log) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
}
