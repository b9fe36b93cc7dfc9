// The failed tests npm test names in its closing lines, read from vitest's
// JSON results (scripts/vitest-run.mjs): each failed test as "file > test"
// with the first line of its failure, and a file that failed with no failed
// test (it did not load) by its message.
import { describe, expect, it } from 'vitest';

import { failedTests } from '../../scripts/vitest-run.mjs';

describe('failedTests', () => {
  it('names each failed test by its file and full name, and nothing that passed', () => {
    const results = {
      testResults: [
        {
          name: '/repo/test/a.test.ts',
          status: 'failed',
          assertionResults: [
            { fullName: 'a passes', status: 'passed' },
            { fullName: 'a breaks', status: 'failed' },
          ],
        },
        { name: '/repo/test/b.test.ts', status: 'passed', assertionResults: [{ fullName: 'b passes', status: 'passed' }] },
      ],
    };
    expect(failedTests(results, '/repo')).toEqual(['test/a.test.ts > a breaks']);
  });

  it("adds the first line of the test's failure, without terminal colours, cut at 300 characters", () => {
    const long = `AssertionError: ${'x'.repeat(400)}`;
    const results = {
      testResults: [
        {
          name: '/repo/test/a.test.ts',
          status: 'failed',
          assertionResults: [
            { fullName: 'a breaks', status: 'failed', failureMessages: ['\u001b[31mAssertionError: expected 1 to be 2\u001b[39m\n    at test/a.test.ts:3:5'] },
            { fullName: 'a breaks long', status: 'failed', failureMessages: [long] },
          ],
        },
      ],
    };
    expect(failedTests(results, '/repo')).toEqual([
      'test/a.test.ts > a breaks: AssertionError: expected 1 to be 2',
      `test/a.test.ts > a breaks long: ${long.slice(0, 300)}…`,
    ]);
  });

  it('names a file that failed without a failed test, with its message', () => {
    const results = { testResults: [{ name: '/repo/test/c.test.ts', status: 'failed', message: 'Cannot find module x', assertionResults: [] }] };
    expect(failedTests(results, '/repo')).toEqual(['test/c.test.ts (Cannot find module x)']);
  });
});
