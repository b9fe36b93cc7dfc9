// Writes a benchmark's figures into its own section of bench/RESULTS.md,
// leaving the other benchmarks' sections as they are.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { machineLine } from './machine.js';

const RESULTS = fileURLToPath(new URL('../RESULTS.md', import.meta.url));
const HEADER = '# Benchmark results\n\nWritten by the scripts in bench/; each section is replaced when its benchmark runs again.\n';

/** Replaces (or appends) the section `name` with a dated block of `lines`. */
export function recordSection(name: string, title: string, lines: readonly string[]): void {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const block = [start, `## ${title}`, '', `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}.`, '', ...lines, end].join('\n');
  const text = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : HEADER;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  const next = from >= 0 && to > from ? text.slice(0, from) + block + text.slice(to + end.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(RESULTS, next);
}
