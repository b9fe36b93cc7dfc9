// Checks response bodies and SSE payloads against the served OpenAPI
// document, so a test fails on any field or value the contract does not allow.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

import { openApiJson } from '../src/api/openapi.js';

type JsonObject = { [key: string]: unknown };

// The document as served, registered under an id so that a schema anywhere
// in it can be compiled by reference and its `#/components/...` refs resolve.
const DOC_ID = 'https://selfscan.invalid/openapi.json';
const doc = JSON.parse(openApiJson) as JsonObject;

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormatsModule.default(ajv);
// The document's top-level fields are no schema keywords; `discriminator` is
// OpenAPI's annotation, redundant here since oneOf already picks by `status`.
ajv.addVocabulary([...Object.keys(doc), 'discriminator']);
ajv.addSchema(doc, DOC_ID);

const compiled = new Map<string, ValidateFunction>();

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a JSON pointer given as segments, or undefined. */
function at(segments: readonly string[]): unknown {
  let node: unknown = doc;
  for (const segment of segments) {
    if (!isObject(node)) return undefined;
    node = node[segment];
  }
  return node;
}

function refSegments(ref: string): string[] {
  if (!ref.startsWith('#/')) throw new Error(`external $ref ${ref} is not supported`);
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Follows `#/...` references from `segments` to the segments of the target. */
function deref(segments: readonly string[]): string[] {
  const node = at(segments);
  return isObject(node) && typeof node.$ref === 'string' ? deref(refSegments(node.$ref)) : [...segments];
}

/** Where the document describes the response to `method path` with `status`. */
function responseLocation(method: string, path: string, status: number): string[] {
  const pathName = path.split('?')[0] ?? path;
  if (!isObject(at(['paths', pathName]))) {
    if (status === 404) return ['components', 'responses', 'NotFound'];
    throw new Error(`the document has no path ${pathName}`);
  }
  const operation = at(['paths', pathName, method.toLowerCase()]);
  if (!isObject(operation)) {
    if (status === 405) return ['components', 'responses', 'MethodNotAllowed'];
    throw new Error(`the document has no operation ${method.toUpperCase()} ${pathName}`);
  }
  const responses = operation.responses;
  if (!isObject(responses) || !(String(status) in responses)) {
    const listed = isObject(responses) ? Object.keys(responses).join(', ') : 'none';
    throw new Error(`${method.toUpperCase()} ${pathName} documents no ${status} response (listed: ${listed})`);
  }
  return deref(['paths', pathName, method.toLowerCase(), 'responses', String(status)]);
}

function validatorAt(segments: readonly string[]): ValidateFunction {
  const fragment = segments.map((s) => encodeURIComponent(s.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/');
  const ref = `${DOC_ID}#/${fragment}`;
  let validate = compiled.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    compiled.set(ref, validate);
  }
  return validate;
}

/**
 * A failed oneOf reports every branch's complaints; when the schema has a
 * discriminator naming a branch for this value, that branch's errors say
 * what is wrong with the intended shape.
 */
function explain(segments: readonly string[], value: unknown, errors: ErrorObject[]): ErrorObject[] {
  const schema = at(deref(segments));
  if (!isObject(schema) || !isObject(schema.discriminator) || !isObject(value)) return errors;
  const { propertyName, mapping } = schema.discriminator;
  if (typeof propertyName !== 'string' || !isObject(mapping)) return errors;
  const target = mapping[String(value[propertyName])];
  if (typeof target !== 'string') return errors;
  const branch = validatorAt(refSegments(target));
  return branch(value) ? errors : (branch.errors ?? errors);
}

function check(segments: readonly string[], value: unknown, what: string): void {
  const validate = validatorAt(segments);
  if (validate(value)) return;
  const lines = explain(segments, value, validate.errors ?? []).map(
    (e) => `- ${e.instancePath || '(root)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
  );
  throw new Error(`${what} does not match the OpenAPI document:\n${lines.join('\n')}`);
}

/**
 * Throws an Error listing the schema violations when `body` does not match
 * the document's schema for the response to `method path` with `status` and
 * `contentType` (default `application/json`; parameters such as charset are
 * ignored). A 404 for a path the document lacks and a 405 for a method a
 * documented path lacks are checked against the shared NotFound and
 * MethodNotAllowed responses. `body` is the parsed JSON.
 */
export function validateResponse(method: string, path: string, status: number, body: unknown, contentType = 'application/json'): void {
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  const response = responseLocation(method, path, status);
  const media = [...response, 'content', mediaType];
  if (!isObject(at(media))) {
    throw new Error(`${method.toUpperCase()} ${path} ${status} has no ${mediaType} content in the document`);
  }
  check([...media, 'schema'], body, `${method.toUpperCase()} ${path} ${status} (${mediaType})`);
}

// The scan shapes and stream events are compiled now, at import, not at a test's first check:
// compiling them takes a few hundred milliseconds on a loaded machine, and a
// first check made while a scan runs would stall this process's loopback
// listeners past the scanner's banner wait (their greeting then never read).
for (const scanType of ['fast', 'deep']) {
  for (const method of ['GET', 'POST']) validatorAt([...responseLocation(method, `/v1/${scanType}`, 200), 'content', 'application/json', 'schema']);
}
const SSE_EVENTS_AT = [...responseLocation('get', '/v2/fast', 200), 'content', 'text/event-stream', 'x-sse-events'];
for (const event of Object.keys(at(SSE_EVENTS_AT) as object)) validatorAt([...SSE_EVENTS_AT, event]);

/**
 * Throws an Error listing the schema violations when `data` (the parsed JSON
 * of the event's `data:` line) is not the payload the document's
 * `x-sse-events` mapping gives for `event` (e.g. `scan:progress`), or when
 * the event is not in that mapping.
 */
export function validateSseEvent(event: string, data: unknown): void {
  const mapping = at(SSE_EVENTS_AT);
  if (!isObject(mapping) || !(event in mapping)) throw new Error(`the document has no SSE event ${event}`);
  check([...SSE_EVENTS_AT, event], data, `SSE event ${event}`);
}
