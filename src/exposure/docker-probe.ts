// Is this the Docker Engine API, and does it serve anyone? Read from its
// answer to `GET /version` (a read): JSON with `ApiVersion` without
// credentials; 401 or 403 where Docker listens or says it is Docker.
import type { AccessFacts } from '../api/port-facts.js';
import { type HttpResponse, headerValue } from './http-response.js';
import { jsonObject } from './json-object.js';
import { printableText } from './printable-text.js';

/** Where dockerd listens on TCP: 2375 in clear, 2376 with TLS. */
const DOCKER_PORTS: ReadonlySet<number> = new Set([2375, 2376]);

/** The access facts of an answer to `GET /version` on `port`, or null when it is not Docker's. */
export function recognizeDocker(response: HttpResponse, port: number): AccessFacts | null {
  if (response.status === 200) {
    const body = jsonObject(response.body);
    if (typeof body?.ApiVersion !== 'string') return null;
    return {
      service: 'docker',
      auth_required: false,
      version: typeof body.Version === 'string' ? printableText(body.Version) : null,
      evidence: printableText(`GET /version answered API version ${body.ApiVersion} without credentials`),
    };
  }
  const docker = DOCKER_PORTS.has(port) || headerValue(response, 'api-version') !== null || /docker/i.test(headerValue(response, 'server') ?? '');
  if ((response.status === 401 || response.status === 403) && docker) {
    return { service: 'docker', auth_required: true, version: null, evidence: `GET /version answered ${response.status}` };
  }
  return null;
}
