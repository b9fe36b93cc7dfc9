// Why a scan (or one region's part of it) failed, in the page's words: one
// place for the script and the no-JavaScript pages. No DOM, no Node, no zod.
import type { FailReason } from '../api/fail-reason.js';

export const FAIL_WORDS: Readonly<Record<FailReason, string>> = {
  interrupted: 'the service stopped before the scan ended',
  unreachable: 'the scanning server has no route to your address',
  scanner_error: 'a local error kept the scanner from running',
};
