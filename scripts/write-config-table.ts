// `npm run docs:config`: rewrites the README's table of settings from the
// config schema (test/unit/config.test.ts fails while they differ).
import { readFileSync, writeFileSync } from 'node:fs';

import { configTable } from '../src/config/config-table.js';

const README = new URL('../README.md', import.meta.url);
const MARKED = /(<!-- config:start -->\n)[\s\S]*?(<!-- config:end -->)/;

const readme = readFileSync(README, 'utf8');
if (!MARKED.test(readme)) throw new Error('README.md has no <!-- config:start --> ... <!-- config:end --> section');
writeFileSync(
  README,
  readme.replace(MARKED, (_all, start: string, end: string) => `${start}${configTable()}\n${end}`),
);
