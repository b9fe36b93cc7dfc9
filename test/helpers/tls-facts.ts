// The TLS facts of a hand-made result: a sound certificate for web.test,
// with what a test cares about changed.
import type { TlsFacts } from '../../src/api/port-facts.js';

export function tlsFacts(changes: Partial<TlsFacts> = {}): TlsFacts {
  return {
    version: 'TLSv1.3',
    cipher: 'TLS_AES_256_GCM_SHA384',
    sni: 'web.test',
    subject_cn: 'web.test',
    sans: ['web.test'],
    issuer: 'selfscan test CA',
    not_after: 0,
    days_left: 60,
    self_signed: false,
    trusted: true,
    name_matches: true,
    sha256: 'a'.repeat(64),
    ...changes,
  };
}
