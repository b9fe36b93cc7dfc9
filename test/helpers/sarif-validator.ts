// Validates a SARIF log against the SARIF 2.1.0 JSON schema with ajv.
// test/fixtures/sarif-2.1.0-rtm.5.json is the schema as published in the
// npm package @microsoft/jest-sarif 1.0.0-beta.0 (MIT, lib/schemas/,
// sha256 2d99159ae54a3eea97f81781cff48780548657c35949f4b7f25e99a2ba4de4f8),
// unchanged. It is written in draft-04, whose only keyword that differs
// here is the root `id` (draft-07: `$id`); it is renamed when loaded, so
// ajv's default draft-07 validator reads it.
import { readFileSync } from 'node:fs';

import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

const schema = JSON.parse(readFileSync(new URL('../fixtures/sarif-2.1.0-rtm.5.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const { $schema: _draft04, id, ...rest } = schema;
// unicodeRegExp off: the schema's `language` pattern has a stray `]` that only
// non-unicode regular expressions (as JSON Schema draft-04 validators used) accept.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormatsModule.default(ajv);
const validate = ajv.compile({ ...rest, $id: id as string });

/** The schema's complaints about `log`; empty when it is valid SARIF 2.1.0. */
export function sarifErrors(log: unknown): string[] {
  return validate(log) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
}
