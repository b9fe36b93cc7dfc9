// The names people know the recognised data stores and control APIs by, as
// a sentence starts with them: the severity table's reasons and the page's
// words use the same. Without zod: the page's script imports it.
import type { AccessService } from './port-facts.js';

export const ACCESS_SERVICE_NAMES: Readonly<Record<AccessService, string>> = Object.freeze({
  redis: 'Redis',
  mongodb: 'MongoDB',
  elasticsearch: 'Elasticsearch',
  memcached: 'Memcached',
  docker: 'The Docker Engine API',
});
