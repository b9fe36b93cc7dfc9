// The facts stage as the scanners see it: whoever sweeps a chunk (the
// single process's runner, a cluster's scanner node) hands its open ports
// here before it records them, so facts come from where the scan ran.
import type { Port } from '../api/port.js';

/**
 * Learns what it can of the `open` ports of `ip` (facts and risk, set on
 * each port in place) within its bound; `ptr`: the address's PTR name,
 * for TLS SNI and the certificate's name check. Never rejects.
 */
export type ExamineOpenPorts = (ip: string, open: Port[], ptr: string | null) => Promise<void>;
