import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { appRoot } from '../../../src-main/platform/paths';

/**
 * The modules the UI's first load runs: everything `src-renderer/src/main.tsx` imports
 * statically, transitively (a lazy `import()` starts another chunk, loaded when its view opens).
 * Type-only imports are left out, as the build leaves them out. Not seen: a package's own
 * imports (the renderer's packages do not use zod) and a lazy `import()` called at start.
 */
function startupGraph(entry: string): { files: Set<string>; packages: Map<string, string> } {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  // Read by TypeScript's parser, as the build reads them: what a statement imports, unless only types.
  const specifiers = (file: string, text: string): string[] => {
    const out: string[] = [];
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    for (const st of source.statements) {
      if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
        const clause = st.importClause;
        const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : null;
        const typesOnly = clause !== undefined && (clause.isTypeOnly || (!clause.name && named !== null && named.length > 0 && named.every((e) => e.isTypeOnly)));
        if (!typesOnly) out.push(st.moduleSpecifier.text);
      } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
        const named = st.exportClause && ts.isNamedExports(st.exportClause) ? st.exportClause.elements : null;
        if (!st.isTypeOnly && !(named !== null && named.length > 0 && named.every((e) => e.isTypeOnly))) out.push(st.moduleSpecifier.text);
      }
    }
    return out;
  };
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of specifiers(file, readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) {
        const base = resolve(dirname(file), spec);
        const found = ['', '.ts', '.tsx', '/index.ts', '/index.tsx'].map((ext) => base + ext).find((p) => existsSync(p) && !p.endsWith('/') && /\.(tsx?|css)$/.test(p));
        if (!found) throw new Error(`${relative(appRoot(), file)}: cannot resolve ${spec}`);
        if (found.endsWith('.ts') || found.endsWith('.tsx')) visit(found);
      } else {
        const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!packages.has(pkg)) packages.set(pkg, relative(appRoot(), file));
      }
    }
  };
  visit(entry);
  return { files, packages };
}

describe("the UI's first load", () => {
  const { files, packages } = startupGraph(join(appRoot(), 'src-renderer', 'src', 'main.tsx'));

  it('is found whole: the shell, the board, the transport', () => {
    const rel = [...files].map((f) => relative(appRoot(), f));
    expect(rel).toEqual(expect.arrayContaining(['src-renderer/src/App.tsx', 'src-renderer/src/features/FeatureBoard.tsx', 'src-preload/client/ws-transport.ts', 'src-preload/contract/host-frames.ts']));
    expect(packages.has('react')).toBe(true);
  });

  it('runs no zod and none of the contract’s schemas (they load with the views that use them)', () => {
    // Which file brought it in, if one does.
    expect(packages.get('zod')).toBeUndefined();
    const schemaModules = [...files].filter((f) => /from\s*['"]zod['"]/.test(readFileSync(f, 'utf8'))).map((f) => relative(appRoot(), f));
    expect(schemaModules).toEqual([]);
  });
});
