/**
 * The import graph of a source tree, read from the text of its modules: relative specifiers of
 * every import and re-export, static, type-only or dynamic. Type-only imports count: they are
 * dependencies of the design even when erased at run time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Module specifiers of every import and re-export, static or dynamic: packages and relative paths. */
export function specifiersOf(text: string): string[] {
  const specifiers = new Set<string>();
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]/g)) specifiers.add(match[1]!);
  for (const match of text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) specifiers.add(match[1]!);
  for (const match of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) specifiers.add(match[1]!);
  return [...specifiers];
}

/** Relative module specifiers of every import and re-export, static or dynamic. */
export function importsOf(text: string): string[] {
  return specifiersOf(text).filter((specifier) => /^\.{1,2}\//.test(specifier));
}

/** Each module under `root` with the modules under `root` it imports (absolute paths). */
export function importGraph(root: string): Map<string, string[]> {
  const files = sources(root);
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const targets = importsOf(readFileSync(file, 'utf8'))
        .map((specifier) => path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')))
        .filter((target) => known.has(target));
      return [file, targets];
    }),
  );
}

/** Every strongly connected component of more than one module, or a module importing itself. */
export function cycles(edges: Map<string, string[]>, root: string): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    lowest.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        lowest.set(node, Math.min(lowest.get(node)!, lowest.get(next)!));
      } else if (onStack.has(next)) {
        lowest.set(node, Math.min(lowest.get(node)!, indices.get(next)!));
      }
    }
    if (lowest.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) found.push(component.map((file) => path.relative(root, file)).sort());
    }
  };
  for (const node of edges.keys()) if (!indices.has(node)) visit(node);
  return found;
}
