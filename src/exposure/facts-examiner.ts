// The facts stage as the service runs it: gatherFacts with the trust roots
// and bounds of src/exposure/, behind the ExamineOpenPorts type.
import type { ExamineOpenPorts } from './examine-open-ports.js';
import { gatherFacts } from './gather-facts.js';

/** The facts stage: every open port probed, rated, in place. */
export const examineWithFacts: ExamineOpenPorts = (ip, open, ptr) => gatherFacts(ip, open, { ptr });
