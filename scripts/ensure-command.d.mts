// Types of ensure-command.mjs, for the benchmarks that import it.
export declare function ensureCommand(command: string, pkg: string, howTo?: string): void;
