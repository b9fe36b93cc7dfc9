// Types of ensure-command.mjs, for the benchmarks that import it.
export declare const hasCommand: (command: string) => boolean;
export declare function aptInstall(packages: readonly string[], who: string): void;
export declare function ensureCommand(command: string, pkg: string, howTo?: string): void;
