// The descriptor guard on this process's real descriptors: the limit it is
// given sits just above what is open, and the test opens and closes
// /dev/null to move the free count across its thresholds.
import { closeSync, openSync, readdirSync } from 'node:fs';

import { afterEach, expect, it } from 'vitest';

import { guardDescriptors, type ListenSwitch } from '../../src/http/descriptor-guard.js';
import { eventually } from '../helpers/eventually.js';

/** With a limit under 512 the reserve is 16: pause below 16 free, resume at 32 plus what listening takes. The steps
 * below clear each threshold by 12 or more, for the few descriptors the test runner opens and closes meanwhile. */
const RESERVE = 16;
const LISTENING_TAKES = 40;

const held: number[] = [];
let stop = (): void => {};
afterEach(() => {
  stop();
  while (held.length > 0) closeSync(held.pop()!);
});

function hold(count: number): void {
  for (let i = 0; i < count; i++) held.push(openSync('/dev/null', 'r'));
}
function release(count: number): void {
  for (let i = 0; i < count; i++) closeSync(held.pop()!);
}
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 350));

/** A switch that records its calls; each resume ends as `outcome` says (at once, by default). */
function recordingSwitch(descriptors = LISTENING_TAKES): ListenSwitch & { calls: string[]; outcome: () => Promise<void> } {
  const recorder = {
    calls: [] as string[],
    outcome: async (): Promise<void> => {},
    descriptors,
    pause: () => recorder.calls.push('pause'),
    resume: () => {
      recorder.calls.push('resume');
      return recorder.outcome();
    },
  };
  return recorder;
}

/** A limit that leaves `free` descriptors free now. */
const limitLeaving = (free: number): number => readdirSync('/proc/self/fd').length + free;

it('pauses below the reserve and resumes only once the reserve twice over and what listening takes are free', async () => {
  const listening = recordingSwitch();
  stop = guardDescriptors(listening, undefined, limitLeaving(200));
  hold(200 - 4);
  await eventually(() => listening.calls.length === 1, 2000, 'a pause');
  expect(listening.calls).toEqual(['pause']);
  // Twice the reserve free and half what listening takes besides: resuming would run short again at once.
  release(2 * RESERVE + LISTENING_TAKES / 2 - 4);
  await settle();
  expect(listening.calls).toEqual(['pause']);
  release(LISTENING_TAKES);
  await eventually(() => listening.calls.length === 2, 2000, 'a resume');
  await settle();
  expect(listening.calls).toEqual(['pause', 'resume']);
});

it('asks again after a resume fails, and pauses again only after one succeeds', async () => {
  const listening = recordingSwitch();
  listening.outcome = async () => {
    throw new Error('address in use');
  };
  stop = guardDescriptors(listening, undefined, limitLeaving(100));
  hold(100 - 4);
  await eventually(() => listening.calls.length === 1, 2000, 'a pause');
  release(100 - 4);
  await eventually(() => listening.calls.length >= 3, 2000, 'a second resume');
  expect(listening.calls.slice(0, 3)).toEqual(['pause', 'resume', 'resume']);
  listening.outcome = async () => {};
  await settle();
  const resumes = listening.calls.length;
  await settle();
  expect(listening.calls.length, 'no resume after one succeeded').toBe(resumes);
  hold(100 - 4);
  await eventually(() => listening.calls.at(-1) === 'pause', 2000, 'a second pause');
});

it('pauses again when it was stopped while a resume was under way', async () => {
  let finish = (): void => {};
  const listening = recordingSwitch(0);
  listening.outcome = () =>
    new Promise<void>((resolve) => {
      finish = resolve;
    });
  stop = guardDescriptors(listening, undefined, limitLeaving(100));
  hold(100 - 4);
  await eventually(() => listening.calls.length === 1, 2000, 'a pause');
  release(100 - 4);
  await eventually(() => listening.calls.length === 2, 2000, 'a resume');
  stop();
  finish();
  await eventually(() => listening.calls.length === 3, 2000, 'the pause after the stop');
  expect(listening.calls).toEqual(['pause', 'resume', 'pause']);
});
