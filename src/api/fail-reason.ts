// Why a scan failed after it was accepted: the codes and what each means,
// written once for the records, the result shapes and the documents.
import * as z from 'zod';

/** Each fail reason and what it means. */
const FAIL_REASON_MEANING = {
  interrupted: 'the service stopped (crash, restart or shutdown) before the scan ended',
  unreachable: 'the scanning server has no route to the address',
  scanner_error: 'another local error kept the scan from running (the log has the system error)',
} as const;

/** Every fail reason, in the order the document lists them. */
export const FAIL_REASONS = Object.keys(FAIL_REASON_MEANING) as readonly (keyof typeof FAIL_REASON_MEANING)[];

/** `interrupted`, `unreachable` or `scanner_error`, described. */
export const FailReason = z.enum(FAIL_REASONS).meta({
  description: FAIL_REASONS.map((reason) => `\`${reason}\`: ${FAIL_REASON_MEANING[reason]}.`).join(' '),
});
export type FailReason = z.output<typeof FailReason>;
