// The node legs of `npm test`: after its main run under the Node that runs
// npm, vitest runs again under each other maintained Node major, for the
// projects that load what differs between majors (the addon, lmdb, the
// HTTP front, the installed package). Each leg's Node comes from the npm
// registry (scripts/node-runtimes.mjs); its bin directory goes first on the
// PATH, so what the tests spawn as `node` or through npm runs on it too.
// Which legs run: SELFSCAN_NODE_LEGS when set, e.g. "24:native,integration
// 22:unit" (a major alone runs DEFAULT_PROJECTS; "none" runs no leg);
// else DEFAULT_LEGS when npm test got no arguments (but the leg of the Node
// running it: the main run was that leg); else none, as a caller who
// narrowed the run (`npm test -- --project unit`) asked for less.
import { delimiter, dirname } from 'node:path';

import { nodeRuntime } from './node-runtimes.mjs';
import { runVitest } from './vitest-run.mjs';

/** The projects of a leg named by its major alone. */
export const DEFAULT_PROJECTS = ['unit', 'native', 'integration'];

/**
 * The legs of a plain `npm test`, about 12 minutes on CI's machine: Node 24
 * runs the unit, native and integration projects; Node 22 the unit and
 * integration ones (the addon is N-API, one binary for every Node, and
 * native is the longest project; lmdb loads a binary of its own per
 * major: abi115 on 20, abi127 on 22, N-API on 24). On both, the server
 * runs Node's http front (uWS has no binary for 22 or 24).
 */
export const DEFAULT_LEGS = [
  { major: 24, projects: DEFAULT_PROJECTS },
  { major: 22, projects: ['unit', 'integration'] },
];

/** The legs SELFSCAN_NODE_LEGS names: "MAJOR[:PROJECT,PROJECT] ...", or "none". */
export function parseLegs(text) {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words.length === 1 && words[0] === 'none') return [];
  return words.map((word) => {
    const match = /^(\d+)(?::([\w-]+(?:,[\w-]+)*))?$/.exec(word);
    if (!match) throw new Error(`SELFSCAN_NODE_LEGS: "${word}" is not MAJOR or MAJOR:PROJECT,PROJECT (or the whole setting "none")`);
    return { major: Number(match[1]), projects: match[2] ? match[2].split(',') : DEFAULT_PROJECTS };
  });
}

/**
 * The legs to run after a main run given `args` under Node `running` (a
 * major): the ones SELFSCAN_NODE_LEGS names, else DEFAULT_LEGS but the
 * running major's (the main run was that leg) when `args` is empty, else none.
 */
export function chosenLegs(args, setting = process.env.SELFSCAN_NODE_LEGS, running = Number(process.versions.node.split('.')[0])) {
  if (setting !== undefined && setting.trim() !== '') return parseLegs(setting);
  return args.length === 0 ? DEFAULT_LEGS.filter((leg) => leg.major !== running) : [];
}

/**
 * Runs one leg's projects under its Node; returns vitest's counts (a leg
 * whose Node could not be had counts as not ok, with nothing run).
 * @returns {import('./vitest-run.mjs').VitestCounts & { name: string }}
 */
export function runLeg({ major, projects }) {
  const name = `node ${major} leg (${projects.join(', ')})`;
  let node;
  try {
    node = nodeRuntime(major);
  } catch (err) {
    console.error(`\ntest: ${name} did not run: no Node ${major}: ${err.message}`);
    return { name, ran: false, passed: 0, failed: 0, skipped: 0, ok: false, status: null, seconds: 0, failures: [] };
  }
  console.log(`\ntest: ${name}: ${node}`);
  const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` };
  const counts = runVitest(
    projects.flatMap((project) => ['--project', project]),
    { node, env, resultsFile: `.vitest-results-node${major}.json` },
  );
  if (!counts.ran) console.error(`test: ${name}: vitest wrote no results (${counts.status})`);
  return { name, ...counts };
}
