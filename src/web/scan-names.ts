// Each scan type's name in the page's words: as a title or a button
// (`UDP scan`) and inside a sentence (`the fast scan`, `the UDP scan`: an
// acronym keeps its capitals). One place for the script and the
// no-JavaScript pages. No DOM, no Node, no zod.
import type { ScanType } from '../api/scan-type.js';

export const SCAN_TITLES: Readonly<Record<ScanType, string>> = { fast: 'Fast scan', deep: 'Deep scan', udp: 'UDP scan' };

export const SCAN_NAMES_IN_SENTENCE: Readonly<Record<ScanType, string>> = { fast: 'fast scan', deep: 'deep scan', udp: 'UDP scan' };
