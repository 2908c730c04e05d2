/*
 * The measures of the application layer (issue 30, item 1), reproducible at any commit:
 *
 *   node --import tsx scripts/app-layer-measures.ts [--top N]
 *
 * - the largest functions in services/ (lines from the first to the last line of the function,
 *   nested functions counted inside their outer one), non-test files only;
 * - SQL statements outside read-model modules: kysely statement starts (`selectFrom`,
 *   `insertInto`, `updateTable`, `deleteFrom`, `replaceInto`, `mergeInto`) and raw `sql` tagged
 *   templates, per service. Read-model modules are files under a `read-model/` folder, files named
 *   `*.queries.ts`, and projections (`*.projection.ts`), which are the read model's writers;
 * - unit spec files (`*.unit.spec.ts`) per service.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
const servicesDir = join(root, 'services');
const top = Number(process.argv[process.argv.indexOf('--top') + 1]) || 5;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const isTest = (path: string) => /\.spec\.ts$|test-support|[/]testing[/.]/.test(path);
const isReadModelModule = (path: string) =>
  /[/]read-model[/]/.test(path) || /\.queries\.ts$/.test(path) || /\.projection\.ts$/.test(path);

interface FunctionSize {
  file: string;
  name: string;
  lines: number;
}

function functionName(node: ts.Node): string {
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isFunctionExpression(node)) &&
    node.name
  ) {
    return node.name.getText();
  }
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (parent && ts.isCallExpression(parent)) {
    return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  }
  return '(anonymous)';
}

function measure(file: string) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const functions: FunctionSize[] = [];
  let sqlStatements = 0;
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node) => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node)
    ) {
      functions.push({
        file: relative(root, file),
        name: functionName(node),
        lines: lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1,
      });
    }
    if (
      ts.isPropertyAccessExpression(node) &&
      /^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)$/.test(
        node.name.text,
      ) &&
      ts.isCallExpression(node.parent)
    ) {
      sqlStatements++;
    }
    if (ts.isTaggedTemplateExpression(node) && /^sql(<.*>)?$/.test(node.tag.getText())) {
      sqlStatements++;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { functions, sqlStatements };
}

const perService = new Map<
  string,
  { sqlOutside: number; sqlFiles: Set<string>; unitSpecs: number }
>();
const allFunctions: FunctionSize[] = [];
for (const file of files(servicesDir)) {
  const service = relative(servicesDir, file).split('/')[0]!;
  const entry = perService.get(service) ?? { sqlOutside: 0, sqlFiles: new Set(), unitSpecs: 0 };
  perService.set(service, entry);
  if (file.endsWith('.unit.spec.ts')) entry.unitSpecs++;
  if (isTest(file)) continue;
  const { functions, sqlStatements } = measure(file);
  allFunctions.push(...functions);
  if (!isReadModelModule(file) && sqlStatements > 0) {
    entry.sqlOutside += sqlStatements;
    entry.sqlFiles.add(relative(root, file));
  }
}

allFunctions.sort((a, b) => b.lines - a.lines);
console.log(`largest functions in services/ (lines):`);
for (const f of allFunctions.slice(0, top)) console.log(`  ${f.lines}\t${f.name}\t${f.file}`);
console.log(`SQL statements outside read-model modules, per service:`);
let total = 0;
for (const [service, entry] of [...perService].sort()) {
  total += entry.sqlOutside;
  console.log(`  ${service}: ${entry.sqlOutside} in ${entry.sqlFiles.size} files`);
  for (const f of [...entry.sqlFiles].sort()) console.log(`    ${f}`);
}
console.log(`  total: ${total}`);
console.log(`unit spec files, per service:`);
for (const [service, entry] of [...perService].sort()) {
  console.log(`  ${service}: ${entry.unitSpecs}`);
}
