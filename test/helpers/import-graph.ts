// The relative imports of a source tree as a graph of files and of the
// folders that hold them, and the cycles in a graph (Tarjan's strongly
// connected components): what the import-graph test checks the house by.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type Graph = ReadonlyMap<string, ReadonlySet<string>>;

/** Every `.ts` file under `root`, by path relative to it. */
function sourceFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.split(path.sep).join('/'));
}

/** Files (relative to `root`) to the files they import, and folders to the folders they import from. */
export function importGraphs(root: string): { files: Graph; folders: Graph } {
  const files = new Map<string, Set<string>>();
  const folders = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const imports = new Set<string>();
    files.set(file, imports);
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier!)).replace(/\.js$/, '.ts');
      imports.add(target);
      const [from, to] = [path.posix.dirname(file), path.posix.dirname(target)];
      if (from !== to) folders.set(from, (folders.get(from) ?? new Set()).add(to));
    }
  }
  return { files, folders };
}

/** The cycles of `graph`: each a list of its nodes (a node importing itself is one too). */
export function cycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}
