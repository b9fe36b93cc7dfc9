// Types of node-legs.mjs, for its unit test.
export interface NodeLeg {
  major: number;
  projects: readonly string[];
}
export declare const DEFAULT_PROJECTS: readonly string[];
export declare const DEFAULT_LEGS: readonly NodeLeg[];
export declare function parseLegs(text: string): NodeLeg[];
export declare function chosenLegs(args: readonly string[], setting?: string, running?: number): readonly NodeLeg[];
