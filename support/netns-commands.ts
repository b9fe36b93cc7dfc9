/**
 * The commands the netns fixtures run: any tool (`run`, rejecting with its
 * stderr), and the same iptables rules installed in a namespace for IPv4
 * and IPv6 with a way to remove them again.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Runs a tool; rejects with its stderr. */
export async function run(file: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync(file, args, { encoding: 'utf8' });
    return stdout;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(`netns fixture: \`${file} ${args.join(' ')}\` failed${stderr ? `: ${stderr}` : ''}`, { cause: err });
  }
}

/** Rules installed by {@link installRules}. */
export interface InstalledRules {
  /**
   * Deletes the rules that appended (`-A`) to a chain, the last installed
   * first; a rule already gone (with its namespace) is passed over. Chains
   * made with `-N` stay. Safe to call more than once.
   */
  remove(): Promise<void>;
  /** The same, synchronously, for a process exit hook. */
  removeSync(): void;
}

/** iptables argument lists, such as `['-A', 'INPUT', …]`. */
type Rules = readonly (readonly string[])[];

/**
 * Installs `rules` in `namespace` with iptables, then with ip6tables (the
 * same rules, or each family's own when `rules` is a function of the
 * family), one at a time and in order. If one fails, those installed are
 * removed and its error thrown.
 */
export async function installRules(
  tools: { ip: string; iptables: string; ip6tables: string },
  namespace: string,
  rules: Rules | ((family: 4 | 6) => Rules),
): Promise<InstalledRules> {
  // `ip netns exec <namespace> <iptables> -w -D …` argument lists, in the order installed.
  const deletions: string[][] = [];
  const installed: InstalledRules = {
    async remove() {
      for (const args of deletions.splice(0).reverse()) await run(tools.ip, args).catch(() => undefined);
    },
    removeSync() {
      for (const args of deletions.splice(0).reverse()) {
        try {
          execFileSync(tools.ip, args, { stdio: 'ignore' });
        } catch {
          // the rule is gone already (its namespace was deleted)
        }
      }
    },
  };
  try {
    for (const [family, iptables] of [
      [4, tools.iptables],
      [6, tools.ip6tables],
    ] as const) {
      for (const rule of typeof rules === 'function' ? rules(family) : rules) {
        const inNamespace = (args: readonly string[]): string[] => ['netns', 'exec', namespace, iptables, '-w', ...args];
        await run(tools.ip, inNamespace(rule));
        const append = rule.indexOf('-A');
        if (append >= 0) deletions.push(inNamespace(rule.map((arg, i) => (i === append ? '-D' : arg))));
      }
    }
  } catch (error) {
    await installed.remove();
    throw error;
  }
  return installed;
}
