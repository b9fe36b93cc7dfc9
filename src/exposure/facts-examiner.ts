// The facts stage as the service runs it: gatherFacts with the trust roots
// and bounds of src/exposure/, behind the ExamineOpenPorts type.
import type { ExamineOpenPorts } from './examine-open-ports.js';
import { gatherFacts } from './gather-facts.js';
import { clientContext } from './tls-probe.js';
import { systemTrustRoots } from './trust-roots.js';

/**
 * The facts stage: every open port probed, rated, in place. Its TLS client
 * context is made now: parsing the CA store holds the event loop some
 * 40 ms, which at start delays no caller.
 */
export function factsExaminer(): ExamineOpenPorts {
  clientContext(systemTrustRoots());
  return (ip, open, ptr) => gatherFacts(ip, open, { ptr });
}
