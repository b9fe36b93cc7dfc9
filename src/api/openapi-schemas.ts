// The OpenAPI document's components.schemas, generated from the zod
// schemas with zod's own z.toJSONSchema: each schema is converted once and
// referenced by `$ref` wherever another one uses it. Discriminated unions
// get OpenAPI's `discriminator` with the mapping zod already knows.
import * as z from 'zod';

import { ErrorBody } from './error-body.js';
import { Health } from './health.js';
import { IpAddress } from './ip-address.js';
import { JsonRpcMessage } from './json-rpc-message.js';
import { type JsonValue, withoutTypeArrays } from './json-schema.js';
import { Port } from './port.js';
import { ScanQueued } from './scan-queued.js';
import {
  ScanResult,
  ScanResultComplete,
  ScanResultFailed,
  ScanResultFinal,
  ScanResultFinished,
  ScanResultIncomplete,
  ScanResultInFlight,
  ScanResultNone,
} from './scan-result.js';
import { ScanType } from './scan-type.js';
import { SseProgress, SseQueued } from './sse-events.js';
import { WebhookKey } from './webhook-key.js';
import { WebhookEvent, WebhookPayload } from './webhook-payload.js';

/** Every named schema of the document, by its component name (the interface calls the Error body `Error`). */
export const COMPONENT_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  ScanType,
  IpAddress,
  Port,
  ScanQueued,
  ScanResult,
  ScanResultNone,
  ScanResultInFlight,
  ScanResultComplete,
  ScanResultIncomplete,
  ScanResultFailed,
  ScanResultFinished,
  ScanResultFinal,
  SseQueued,
  SseProgress,
  Error: ErrorBody,
  WebhookEvent,
  WebhookPayload,
  WebhookKey,
  JsonRpcMessage,
  Health,
};

const registry = z.registry<{ id: string }>();
for (const [id, schema] of Object.entries(COMPONENT_SCHEMAS)) registry.add(schema, { id });

const componentRef = (id: string): string => `#/components/schemas/${id}`;

/** `{ $ref }` to the component of `schema`, which must be one of the document's named schemas. */
export function schemaRef(schema: z.ZodType): { $ref: string } {
  const id = registry.get(schema)?.id;
  if (id === undefined) throw new Error('schemaRef: not a component of the OpenAPI document');
  return { $ref: componentRef(id) };
}

/** Adds OpenAPI's `discriminator` to a discriminated union of named schemas. */
function discriminator({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodType; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  if (!(zodSchema instanceof z.ZodDiscriminatedUnion)) return;
  const propertyName = zodSchema.def.discriminator;
  const mapping: Record<string, string> = {};
  for (const option of zodSchema.options as z.ZodType[]) {
    const { $ref } = schemaRef(option);
    for (const value of option._zod.propValues?.[propertyName] ?? []) mapping[String(value)] = $ref;
  }
  jsonSchema.discriminator = { propertyName, mapping };
}

function generate(): Record<string, JsonValue> {
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'output', uri: componentRef, override: discriminator });
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, withoutTypeArrays(schema as JsonValue)]));
}

/** components.schemas: every named schema as JSON Schema 2020-12, nullable fields as `anyOf`. */
export const componentSchemas: Readonly<Record<string, JsonValue>> = generate();
