/**
 * The DynamoDB actions a function's code can ask for, read from its source (no database, no
 * recording): from the handler module, every declaration it can reach by name (its own, and
 * through imports across functions/ and lib/), and in each the requests it builds:
 *
 * - a DynamoDB command (`new QueryCommand(…)`, `BatchGetItemCommand`, `BatchWriteCommand`, …) is
 *   its action (`dynamodb:Query`, …); TransactWriteItems is authorized per contained step, so
 *   its steps count instead: an object literal with a `Put`, `Update`, `Delete` or
 *   `ConditionCheck` key (a TransactItem) is PutItem, UpdateItem, DeleteItem, ConditionCheckItem;
 * - `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` reads the item back: GetItem (the rule of
 *   lib/local/permissions.ts, which holds the running service to the same grants);
 * - Powertools' DynamoDB persistence layer (the Idempotency-Key record) is IDEMPOTENCY_ACTIONS.
 *
 * It over-approximates (a function reachable by name counts, whatever branch calls it), so an
 * action it finds and the route does not declare is either missing from the route's IAM or a
 * declaration reachable where it should not be: both worth a look. Type positions are skipped
 * (a type import of a command is no request).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { IDEMPOTENCY_ACTIONS } from '#functions/routes';

export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** package.json `imports` this code uses: `#core/x` → functions/core/x.ts, … */
const ALIASES: [prefix: string, directory: string][] = [
  ['#core/', 'functions/core/'],
  ['#functions/', 'functions/'],
  ['#lib/', 'lib/'],
];
const DYNAMODB_PACKAGES = new Set(['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb']);
const IDEMPOTENCY_PACKAGE = '@aws-lambda-powertools/idempotency/dynamodb';

/** A command's name without `Command` → the IAM actions it needs by itself. */
const COMMAND_ACTIONS: Record<string, string[]> = {
  BatchGetItem: ['BatchGetItem'],
  BatchGet: ['BatchGetItem'],
  GetItem: ['GetItem'],
  Get: ['GetItem'],
  Query: ['Query'],
  Scan: ['Scan'],
  PutItem: ['PutItem'],
  Put: ['PutItem'],
  UpdateItem: ['UpdateItem'],
  Update: ['UpdateItem'],
  DeleteItem: ['DeleteItem'],
  Delete: ['DeleteItem'],
  BatchWriteItem: ['BatchWriteItem'],
  BatchWrite: ['BatchWriteItem'],
  // Authorized by the steps inside (object literals, below).
  TransactWriteItems: [],
  TransactWrite: [],
  TransactGetItems: ['GetItem'],
  TransactGet: ['GetItem'],
};
/** Keys of a TransactItem → the action of that step. */
const STEP_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

type Binding = { module: string; name: string };

interface ParsedFile {
  path: string;
  /** Top-level declarations by name. */
  declarations: Map<string, ts.Node[]>;
  /** Local name → what it imports (`*` for a namespace, `default`). */
  imports: Map<string, Binding>;
  /** `export { a as b } from` and `export { a as b }`: exported name → binding (module '' = this file). */
  reexports: Map<string, Binding>;
  /** `export * from`. */
  starExports: string[];
}

const parsed = new Map<string, ParsedFile>();

/** A module specifier as written in `from`, made an absolute .ts path (or left as a package name). */
function resolveModule(fromFile: string, specifier: string): string {
  let base: string | undefined;
  if (specifier.startsWith('.')) base = resolve(dirname(fromFile), specifier);
  for (const [prefix, directory] of ALIASES)
    if (specifier.startsWith(prefix)) base = join(projectRoot, directory, specifier.slice(prefix.length));
  if (base === undefined) return specifier;
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')])
    if (candidate.endsWith('.ts') && existsSync(candidate)) return candidate;
  return specifier; // a JSON file or something else without code
}

function parse(path: string): ParsedFile {
  const known = parsed.get(path);
  if (known) return known;
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const file: ParsedFile = { path, declarations: new Map(), imports: new Map(), reexports: new Map(), starExports: [] };
  const declare = (name: string, node: ts.Node) => file.declarations.set(name, [...(file.declarations.get(name) ?? []), node]);
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      if (!clause || clause.isTypeOnly) continue;
      const module = resolveModule(path, statement.moduleSpecifier.text);
      if (clause.name) file.imports.set(clause.name.text, { module, name: 'default' });
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) file.imports.set(bindings.name.text, { module, name: '*' });
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          if (element.isTypeOnly) continue;
          file.imports.set(element.name.text, { module, name: (element.propertyName ?? element.name).text });
        }
      }
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.isTypeOnly) continue;
      const module =
        statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
          ? resolveModule(path, statement.moduleSpecifier.text)
          : '';
      if (!statement.exportClause) {
        if (module) file.starExports.push(module);
      } else if (ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) {
          file.reexports.set(element.name.text, { module, name: (element.propertyName ?? element.name).text });
        }
      }
    } else if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) {
      if (statement.name) declare(statement.name.text, statement);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        for (const name of boundNames(declaration.name)) declare(name, declaration);
      }
    } else if (ts.isExportAssignment(statement)) {
      declare('default', statement.expression);
    } else if (!ts.isInterfaceDeclaration(statement) && !ts.isTypeAliasDeclaration(statement) && !ts.isModuleDeclaration(statement)) {
      // Code run at import (a top-level call, an assignment): part of the module's own evaluation.
      declare('<module>', statement);
    }
  }
  parsed.set(path, file);
  return file;
}

function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : boundNames(element.name)));
}

/** An identifier that names something (not a property name, a declared name, a label). */
function isReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (ts.isQualifiedName(parent) && parent.right === node) return false;
  if ((ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertyDeclaration(parent)) && parent.name === node)
    return false;
  if ((ts.isGetAccessor(parent) || ts.isSetAccessor(parent) || ts.isPropertySignature(parent)) && parent.name === node) return false;
  if (ts.isBindingElement(parent) && parent.propertyName === node) return false;
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isFunctionExpression(parent) ||
      ts.isClassDeclaration(parent) ||
      ts.isClassExpression(parent) ||
      ts.isParameter(parent) ||
      ts.isBindingElement(parent) ||
      ts.isEnumDeclaration(parent) ||
      ts.isEnumMember(parent)) &&
    parent.name === node
  )
    return false;
  if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return false;
  return true;
}

/** What a reachable set of declarations asks of DynamoDB, and where each action was seen. */
export interface Analysis {
  actions: Map<string, string[]>;
  /** Declarations walked, as `file#name` (for the guard's own sanity checks). */
  visited: Set<string>;
}

function actionName(commandName: string): string[] {
  const base = commandName.replace(/Command$/, '');
  return (COMMAND_ACTIONS[base] ?? [base]).map((action) => `dynamodb:${action}`);
}

/** The actions the code reachable from `entryFile` (all of its top level) can ask for. */
export function dynamodbActionsReachableFrom(entryFile: string): Analysis {
  const actions = new Map<string, string[]>();
  const visited = new Set<string>();
  const note = (action: string, file: string, node: ts.Node) => {
    const sf = node.getSourceFile();
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    actions.set(action, [...(actions.get(action) ?? []), `${relative(projectRoot, file)}:${line}`]);
  };

  function visitExport(module: string, name: string, trail = new Set<string>()): void {
    if (!module.endsWith('.ts')) return;
    const key = `${module}#${name}`;
    if (trail.has(key)) return;
    trail.add(key);
    const file = parse(module);
    if (name === '*') {
      for (const declared of file.declarations.keys()) visitDeclaration(file, declared);
      for (const exported of file.reexports.keys()) visitExport(module, exported, trail);
      for (const star of file.starExports) visitExport(star, '*', trail);
      return;
    }
    if (file.declarations.has(name)) {
      visitDeclaration(file, name);
      return;
    }
    const reexport = file.reexports.get(name);
    if (reexport?.module === '') visitLocal(file, reexport.name);
    else if (reexport) visitExport(reexport.module, reexport.name, trail);
    else for (const star of file.starExports) visitExport(star, name, trail);
  }

  /** A name used in `file`: its own declaration, or what it imports. */
  function visitLocal(file: ParsedFile, name: string): void {
    if (file.declarations.has(name)) {
      visitDeclaration(file, name);
      return;
    }
    const binding = file.imports.get(name);
    if (!binding) return; // a parameter, a local variable, a global
    if (DYNAMODB_PACKAGES.has(binding.module) && binding.name.endsWith('Command')) {
      for (const action of actionName(binding.name)) note(action, file.path, currentNode!);
      return;
    }
    if (binding.module === IDEMPOTENCY_PACKAGE) {
      for (const action of IDEMPOTENCY_ACTIONS) note(action, file.path, currentNode!);
      return;
    }
    visitExport(binding.module, binding.name);
  }

  let currentNode: ts.Node | undefined;

  function visitDeclaration(file: ParsedFile, name: string): void {
    const key = `${relative(projectRoot, file.path)}#${name}`;
    if (visited.has(key)) return;
    visited.add(key);
    for (const node of file.declarations.get(name) ?? []) walk(file, node);
  }

  function walk(file: ParsedFile, node: ts.Node): void {
    // `class X extends Y` names a value (ExpressionWithTypeArguments is a TypeNode to the compiler).
    const typeOnly =
      ts.isTypeNode(node) &&
      !(ts.isExpressionWithTypeArguments(node) && ts.isHeritageClause(node.parent) && node.parent.token === ts.SyntaxKind.ExtendsKeyword);
    if (typeOnly || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    if (ts.isIdentifier(node)) {
      if (isReference(node)) {
        currentNode = node;
        visitLocal(file, node.text);
      }
      return;
    }
    if (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) {
      const key = ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) ? node.name.text : undefined;
      if (key !== undefined && key in STEP_ACTIONS && ts.isObjectLiteralExpression(node.parent)) {
        note(`dynamodb:${STEP_ACTIONS[key]}`, file.path, node);
      }
      if (
        key === 'ReturnValuesOnConditionCheckFailure' &&
        ts.isPropertyAssignment(node) &&
        node.initializer.getText().includes('ALL_OLD')
      ) {
        note('dynamodb:GetItem', file.path, node);
      }
    }
    ts.forEachChild(node, (child) => walk(file, child));
  }

  const entry = parse(entryFile);
  for (const name of entry.declarations.keys()) visitDeclaration(entry, name);
  for (const exported of entry.reexports.keys()) visitExport(entryFile, exported);
  return { actions, visited };
}
