// A separate process that uses the scanner, for what only a process can
// show: exiting on its own when idle, and working under a low ulimit -n.
// Prints one JSON line with the result; never calls process.exit.
import { closeSync, openSync } from 'node:fs';

import { ALL_PORTS } from '../../../support/scan-compare.js';
import { createTestScanner } from '../../helpers/test-scanner.js';

interface ChildRequest {
  ip: string;
  ports?: number[];
  /** While the scan runs, take every free descriptor for a while (forces EMFILE). */
  exhaustFds?: boolean;
}

const request = JSON.parse(process.argv[2] ?? '{}') as ChildRequest;
const scanner = createTestScanner();
let emfileHeld = 0;

// Keeps taking every descriptor the engine frees, for 300 ms, so that its
// socket() calls meet EMFILE; then gives them all back.
function exhaustDescriptors(): void {
  const held: number[] = [];
  const until = performance.now() + 300;
  const grab = (): void => {
    try {
      for (;;) held.push(openSync('/dev/null', 'r'));
    } catch {
      emfileHeld = Math.max(emfileHeld, held.length);
    }
    if (performance.now() < until) setImmediate(grab);
    else for (const fd of held.splice(0)) closeSync(fd);
  };
  grab();
}

let first = true;
const handle = scanner.scan({ ip: request.ip, ports: request.ports ?? [...ALL_PORTS] }, () => {
  if (first && request.exhaustFds) exhaustDescriptors();
  first = false;
});
handle.done.then(
  (summary) => {
    console.log(JSON.stringify({ summary, stats: scanner.stats(), emfileHeld }));
  },
  (error: NodeJS.ErrnoException) => {
    console.log(JSON.stringify({ error: { message: error.message, code: error.code, errno: error.errno, syscall: error.syscall } }));
  },
);
