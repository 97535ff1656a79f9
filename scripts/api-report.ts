/**
 * Public API reports: for every published workspace package and each entry point of its
 * `exports` map, `<package>/api/<entry>.api.md` lists every exported name with its declaration
 * as a consumer's compiler sees it (the `.d.ts` that `tsc -b` wrote), plus the unexported types
 * those declarations mention. The reports are checked in, so a change to a public surface shows
 * in review as a change to a report.
 *
 *   tsx scripts/api-report.ts           check: exit 1 naming each package whose report differs
 *   tsx scripts/api-report.ts --update  rewrite the reports (`pnpm api:update`)
 *
 * Both expect `tsc -b` to have run (the `api:check` and `api:update` scripts run it first).
 *
 * Why this and not api-extractor: api-extractor wants a config file per entry point (four for
 * `@keyhold/conformance`), bundles its own TypeScript (which can lag the workspace's 5.9 and
 * then warns), and analyses each entry in a program of its own, so twenty-four entries would
 * cost most of a minute on CI. One TypeScript program over the built declaration files, read
 * with the compiler API the workspace already has, covers every entry and subpath in a few
 * seconds, and its output is plain declarations a reviewer reads like code.
 * @module
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE_GLOBS = ['packages', 'adapters'];
const REPORT_DIR = 'api';
/** One order on every machine, whatever its locale. */
const BY_NAME = new Intl.Collator('en');

interface PackageManifest {
  name: string;
  private?: boolean;
  exports?: Record<string, string | Record<string, string>>;
}

interface EntryPoint {
  packageName: string;
  packageDir: string;
  /** `.` or `./store`. */
  subpath: string;
  /** The built declaration file the `types` condition names. */
  typesFile: string;
  /** `<package>/api/<entry>.api.md`. */
  reportFile: string;
}

/** The published packages: every non-private one under packages/, adapters/ and conformance. */
function publishedPackageDirs(): string[] {
  const dirs = PACKAGE_GLOBS.flatMap((group) =>
    readdirSync(join(ROOT, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(ROOT, group, entry.name)),
  );
  dirs.push(join(ROOT, 'conformance'));
  return dirs.filter((dir) => {
    const file = join(dir, 'package.json');
    return existsSync(file) && !(JSON.parse(readFileSync(file, 'utf8')) as PackageManifest).private;
  });
}

/** `.` → index, `./store` → store, `./a/b` → a-b. */
function reportNameOf(subpath: string): string {
  return subpath === '.' ? 'index' : subpath.replace(/^\.\//, '').replaceAll('/', '-');
}

function entryPointsOf(packageDir: string): EntryPoint[] {
  const manifest = JSON.parse(
    readFileSync(join(packageDir, 'package.json'), 'utf8'),
  ) as PackageManifest;
  const entries: EntryPoint[] = [];
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const types = typeof target === 'string' ? undefined : target.types;
    if (!types) continue;
    entries.push({
      packageName: manifest.name,
      packageDir,
      subpath,
      typesFile: join(packageDir, types),
      reportFile: join(packageDir, REPORT_DIR, `${reportNameOf(subpath)}.api.md`),
    });
  }
  return entries;
}

/** The package a declaration file belongs to: a workspace package, or one in node_modules. */
function packageOwning(fileName: string, workspace: Map<string, string>): string {
  const nodeModules = fileName.lastIndexOf('/node_modules/');
  if (nodeModules >= 0) {
    const parts = fileName.slice(nodeModules + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  for (const [dir, name] of workspace) if (fileName.startsWith(`${dir}/`)) return name;
  return relative(ROOT, fileName);
}

/**
 * Where a name re-exported from a third-party module comes from (those modules are not in the
 * program): the last `import`/`export … from` on its alias chain, e.g. `Options from raw-body`.
 */
function thirdPartyOrigin(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  let origin = 'a third-party module';
  let current: ts.Symbol | undefined = symbol;
  while (current && current.flags & ts.SymbolFlags.Alias) {
    const declaration = current.declarations?.[0];
    if (declaration && (ts.isExportSpecifier(declaration) || ts.isImportSpecifier(declaration))) {
      const statement = ts.isExportSpecifier(declaration)
        ? declaration.parent.parent
        : declaration.parent.parent.parent;
      if (statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier))
        origin = `${(declaration.propertyName ?? declaration.name).text} from ${statement.moduleSpecifier.text}`;
    }
    current = checker.getImmediateAliasedSymbol(current);
  }
  return origin;
}

/** The statement to print for a declaration: a variable's whole `declare const …;`. */
function statementOf(declaration: ts.Declaration): ts.Node {
  if (ts.isVariableDeclaration(declaration)) return declaration.parent.parent;
  return declaration;
}

/**
 * The unexported declarations of the entry's own package that a printed declaration mentions
 * by name (a parameter's interface, a base class): changing them changes the surface too.
 */
function referencedSymbols(node: ts.Node, checker: ts.TypeChecker): ts.Symbol[] {
  const found: ts.Symbol[] = [];
  const visit = (child: ts.Node) => {
    let name: ts.Node | undefined;
    if (ts.isTypeReferenceNode(child)) name = child.typeName;
    else if (ts.isExpressionWithTypeArguments(child)) name = child.expression;
    else if (ts.isTypeQueryNode(child)) name = child.exprName;
    if (name) {
      let symbol = checker.getSymbolAtLocation(name);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      if (symbol) found.push(symbol);
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return found;
}

function renderReport(
  entry: EntryPoint,
  program: ts.Program,
  workspace: Map<string, string>,
): string {
  const checker = program.getTypeChecker();
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
  const source = program.getSourceFile(entry.typesFile);
  if (!source) throw new Error(`${entry.typesFile} is not in the program`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  const exported = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
  const ownDir = `${entry.packageDir}/`;

  const printDeclarations = (symbol: ts.Symbol): string[] =>
    (symbol.declarations ?? []).map((declaration) => {
      const statement = statementOf(declaration);
      return printer.printNode(ts.EmitHint.Unspecified, statement, statement.getSourceFile());
    });

  const sections: string[] = [];
  const shown = new Set<ts.Symbol>();
  const pending: ts.Symbol[] = [];
  for (const symbol of [...exported].sort((a, b) => BY_NAME.compare(a.name, b.name))) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    shown.add(target);
    const file = target.declarations?.[0]?.getSourceFile().fileName ?? '';
    const notes = [
      file && target.name !== symbol.name ? `declared as ${target.name}` : '',
      !file ? thirdPartyOrigin(symbol, checker) : '',
      file && !file.startsWith(ownDir) ? `from ${packageOwning(file, workspace)}` : '',
    ].filter(Boolean);
    const heading = `// ${symbol.name}${notes.length ? ` (${notes.join(', ')})` : ''}`;
    const declarations = printDeclarations(target);
    sections.push([heading, ...declarations].join('\n'));
    for (const declaration of target.declarations ?? [])
      pending.push(...referencedSymbols(statementOf(declaration), checker));
  }

  // Unexported types the exported declarations mention, and the ones those mention in turn.
  const unexported: string[] = [];
  while (pending.length > 0) {
    const symbol = pending.shift()!;
    if (shown.has(symbol)) continue;
    shown.add(symbol);
    const declarations = symbol.declarations ?? [];
    if (!declarations.some((d) => d.getSourceFile().fileName.startsWith(ownDir))) continue;
    if (symbol.flags & ts.SymbolFlags.TypeParameter) continue;
    unexported.push(
      [`// ${symbol.name} (not exported by this entry point)`, ...printDeclarations(symbol)].join(
        '\n',
      ),
    );
    for (const declaration of declarations)
      pending.push(...referencedSymbols(statementOf(declaration), checker));
  }
  unexported.sort();

  const importPath =
    entry.subpath === '.' ? entry.packageName : entry.packageName + entry.subpath.slice(1);
  return [
    `# API report: \`${importPath}\``,
    '',
    'Generated by `scripts/api-report.ts` from the built declarations; do not edit.',
    'Run `pnpm api:update` after changing this public surface, and commit the result.',
    '',
    '```ts',
    sections.join('\n\n'),
    ...(unexported.length > 0
      ? [
          '',
          '// Not exported by this entry point, but named in the declarations above:',
          '',
          unexported.join('\n\n'),
        ]
      : []),
    '```',
    '',
  ].join('\n');
}

/** The lines only one side has, `-` for the checked-in report and `+` for the current one. */
function lineChanges(before: string, after: string): string[] {
  const old = new Set(before.split('\n'));
  const now = new Set(after.split('\n'));
  return [
    ...before
      .split('\n')
      .filter((line) => !now.has(line))
      .map((line) => `    - ${line}`),
    ...after
      .split('\n')
      .filter((line) => !old.has(line))
      .map((line) => `    + ${line}`),
  ];
}

/**
 * One program over the entry declaration files and the workspace declarations they reach.
 * Third-party modules and the standard library are left out: the report prints declarations
 * as written, so their types are never needed, and parsing them was most of the run time.
 */
function workspaceProgram(rootNames: string[]): ts.Program {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noLib: true,
    noEmit: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  host.resolveModuleNameLiterals = (literals, containingFile, _redirect, compilerOptions, file) =>
    literals.map((literal) => {
      const { resolvedModule } = ts.resolveModuleName(
        literal.text,
        containingFile,
        compilerOptions,
        host,
        undefined,
        undefined,
        ts.getModeForUsageLocation(file, literal, compilerOptions),
      );
      const inWorkspace =
        resolvedModule && !resolvedModule.resolvedFileName.includes('/node_modules/');
      return { resolvedModule: inWorkspace ? resolvedModule : undefined };
    });
  return ts.createProgram({ rootNames, options, host });
}

function main(): number {
  const update = process.argv.includes('--update');
  const started = performance.now();
  const packageDirs = publishedPackageDirs();
  const entries = packageDirs.flatMap(entryPointsOf);
  const missing = entries.filter((entry) => !existsSync(entry.typesFile));
  if (missing.length > 0) {
    console.error(
      `api-report: no built declarations for ${missing.map((e) => relative(ROOT, e.typesFile)).join(', ')}; run \`tsc -b\` first (\`pnpm api:check\` does).`,
    );
    return 1;
  }
  const workspace = new Map(
    packageDirs.map((dir) => [
      dir,
      (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageManifest).name,
    ]),
  );
  const program = workspaceProgram(entries.map((entry) => entry.typesFile));
  const stale: string[] = [];
  const expected = new Set<string>();
  for (const entry of entries) {
    expected.add(entry.reportFile);
    const report = renderReport(entry, program, workspace);
    const current = existsSync(entry.reportFile) ? readFileSync(entry.reportFile, 'utf8') : '';
    if (current === report) continue;
    if (update) {
      mkdirSync(dirname(entry.reportFile), { recursive: true });
      writeFileSync(entry.reportFile, report);
      console.log(`api-report: wrote ${relative(ROOT, entry.reportFile)}`);
    } else {
      const importPath =
        entry.subpath === '.' ? entry.packageName : entry.packageName + entry.subpath.slice(1);
      stale.push(
        [
          `  ${importPath}: ${relative(ROOT, entry.reportFile)} ${current ? 'differs from its public surface' : 'is missing'}`,
          ...lineChanges(current, report).slice(0, 40),
        ].join('\n'),
      );
    }
  }
  // Reports of entry points that no longer exist.
  for (const dir of packageDirs) {
    const reports = join(dir, REPORT_DIR);
    if (!existsSync(reports)) continue;
    for (const name of readdirSync(reports)) {
      const file = join(reports, name);
      if (!name.endsWith('.api.md') || expected.has(file)) continue;
      if (update) {
        rmSync(file);
        console.log(`api-report: removed ${relative(ROOT, file)}`);
      } else stale.push(`  ${relative(ROOT, file)}: reports an entry point that no longer exists`);
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (stale.length > 0) {
    console.error(
      [
        'API reports are out of date: a public surface changed.',
        ...stale,
        'If the change is intended, run `pnpm api:update` and commit the reports with it.',
      ].join('\n'),
    );
    return 1;
  }
  console.log(
    `api-report: ${entries.length} entry points ${update ? 'up to date' : 'match their reports'} (${seconds} s)`,
  );
  return 0;
}

process.exitCode = main();
