// Which node legs `npm test` runs after its main run (scripts/node-legs.mjs):
// every default one but the running major's on a plain run (SELFSCAN_NODE_LEGS
// empty counts as unset), none when the caller narrowed the run, and exactly
// what SELFSCAN_NODE_LEGS names.
import { describe, expect, it } from 'vitest';

import { chosenLegs, DEFAULT_LEGS, DEFAULT_PROJECTS, parseLegs } from '../../scripts/node-legs.mjs';

describe('chosenLegs', () => {
  it('runs the default legs after a plain npm test, but the running major', () => {
    expect(chosenLegs([], '', 20)).toEqual(DEFAULT_LEGS);
    expect(chosenLegs([], ' ', 20)).toEqual(DEFAULT_LEGS);
    expect(chosenLegs([], '', 24).map((leg) => leg.major)).toEqual(DEFAULT_LEGS.map((leg) => leg.major).filter((major) => major !== 24));
  });

  it('runs none when the caller narrowed the run', () => {
    expect(chosenLegs(['--project', 'unit'], '', 20)).toEqual([]);
    expect(chosenLegs(['test/native/fixture.test.ts'], '', 20)).toEqual([]);
  });

  it('runs what SELFSCAN_NODE_LEGS names, whatever the arguments', () => {
    expect(chosenLegs(['--project', 'unit'], '24:unit', 20)).toEqual([{ major: 24, projects: ['unit'] }]);
    expect(chosenLegs([], 'none', 20)).toEqual([]);
  });
});

describe('parseLegs', () => {
  it('reads majors with and without their projects', () => {
    expect(parseLegs(' 24:native,integration  22 ')).toEqual([
      { major: 24, projects: ['native', 'integration'] },
      { major: 22, projects: DEFAULT_PROJECTS },
    ]);
  });

  it('refuses what is not a leg', () => {
    expect(() => parseLegs('node24')).toThrow(/SELFSCAN_NODE_LEGS: "node24" is not MAJOR/);
    expect(() => parseLegs('24:')).toThrow(/"24:"/);
    expect(() => parseLegs('24 none')).toThrow(/"none"/);
  });
});
