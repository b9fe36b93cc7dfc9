// Types of vitest-run.mjs, for its unit test.
export interface VitestFileResult {
  name: string;
  status: string;
  message?: string;
  assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
}
export declare function failedTests(results: { testResults: VitestFileResult[] }, root?: string): string[];
