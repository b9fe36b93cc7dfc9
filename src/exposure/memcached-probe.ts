// Is this Memcached, and does it serve anyone? Its text protocol has no
// credentials: `version` is answered `VERSION x`; one built for SASL only
// answers the text protocol with an error.
import type { AccessFacts } from '../api/port-facts.js';
import { printableText } from './printable-text.js';
import { ProbeConnection, type ProbeTarget } from './probe-connection.js';

/** Sends `version`; the access facts, or null when the answer is not Memcached's. */
export async function probeMemcached(target: ProbeTarget): Promise<AccessFacts | null> {
  const connection = await ProbeConnection.open(target);
  if (connection === null) return null;
  try {
    const bytes = await connection.ask('version\r\n', (received) => received.includes(0x0a));
    const line = bytes.toString('latin1').split('\n', 1)[0]!.replace(/\r$/, '');
    const version = /^VERSION (\S+)$/.exec(line)?.[1];
    if (version !== undefined) return { service: 'memcached', auth_required: false, version: printableText(version), evidence: 'version answered VERSION' };
    if (/^(?:ERROR|CLIENT_ERROR|SERVER_ERROR)\b/.test(line)) {
      return { service: 'memcached', auth_required: true, version: null, evidence: printableText(`version answered ${line}`) };
    }
    return null;
  } finally {
    connection.close();
  }
}
