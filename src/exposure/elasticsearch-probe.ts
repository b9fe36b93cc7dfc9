// Is this Elasticsearch (or OpenSearch), and does it serve anyone? Read from
// its answer to `GET /`: the cluster's JSON (`You Know, for Search`, a
// cluster name and version) without credentials, or a 401 from its
// security realm. No request of its own.
import type { AccessFacts } from '../api/port-facts.js';
import { type HttpResponse, headerValue } from './http-response.js';
import { jsonObject } from './json-object.js';
import { printableText } from './printable-text.js';

const TAGLINE = 'You Know, for Search';
const ELASTICSEARCH_PORT = 9200;

/** The access facts of an answer to `GET /` on `port`, or null when it is not Elasticsearch's. */
export function recognizeElasticsearch(response: HttpResponse, port: number): AccessFacts | null {
  if (response.status === 200) {
    const body = jsonObject(response.body);
    const version = body?.version;
    const number = typeof version === 'object' && version !== null ? (version as Record<string, unknown>).number : undefined;
    const clustered = typeof body?.cluster_name === 'string' && typeof number === 'string';
    if (body === null || (body.tagline !== TAGLINE && !clustered)) return null;
    const name = typeof body.cluster_name === 'string' ? ` of cluster ${body.cluster_name}` : '';
    return {
      service: 'elasticsearch',
      auth_required: false,
      version: typeof number === 'string' ? printableText(number) : null,
      evidence: printableText(`GET / answered the cluster's details${name} without credentials`),
    };
  }
  const realm = /realm="security"/i.test(headerValue(response, 'www-authenticate') ?? '');
  const elastic = port === ELASTICSEARCH_PORT || headerValue(response, 'x-elastic-product') !== null || response.body.includes('security_exception');
  if (response.status === 401 && realm && elastic) {
    return { service: 'elasticsearch', auth_required: true, version: null, evidence: 'GET / answered 401 from realm "security"' };
  }
  return null;
}
