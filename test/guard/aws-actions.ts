/**
 * The AWS actions a function's code can ask for, read from its source (no database, no
 * recording, nothing taken from the route table): from the handler module, every declaration it
 * can reach by name (its own, and through imports across functions/ and lib/, and into the
 * packages that can call AWS themselves), and in each the requests it builds:
 *
 * - an AWS SDK command (`new QueryCommand(…)`, `HeadObjectCommand`, `PutEventsCommand`, …) is the
 *   IAM action(s) that operation needs (`ACTIONS` below), whether it is sent or presigned: a
 *   presigned URL carries the rights of whoever signed it;
 * - TransactWriteItems is authorized per contained step, so its steps count instead: an object
 *   literal with a `Put`, `Update`, `Delete` or `ConditionCheck` key (a TransactItem) is PutItem,
 *   UpdateItem, DeleteItem, ConditionCheckItem (not inside another service's command: S3's
 *   DeleteObjects takes a `Delete` too);
 * - `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` reads the item back: GetItem (the rule of
 *   lib/local/permissions.ts, which holds the running service to the same grants);
 * - a package is followed when its manifest depends on an AWS SDK client (so it can call AWS
 *   itself): Powertools' idempotency utility, whose DynamoDB persistence layer is read from its
 *   own published source, not from a list of ours. Other packages (middy, zod, the logger) and
 *   the SDK's internals are not walked.
 *
 * It over-approximates (a function reachable by name counts, whatever branch calls it), so an
 * action it finds and the route does not declare is either missing from the route's IAM or a
 * declaration reachable where it should not be: both worth a look. Type positions are skipped
 * (a type import of a command is no request). Dynamic `import()` is not followed: the code
 * loaded that way (the tracer, the `sam local` token check) calls no AWS API of its own.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** package.json `imports` this code uses: `#core/x` → functions/core/x.ts, … */
const ALIASES: [prefix: string, directory: string][] = [
  ['#core/', 'functions/core/'],
  ['#functions/', 'functions/'],
  ['#lib/', 'lib/'],
];

/**
 * The SDK packages whose commands are AWS requests, and the IAM service prefix of each. A
 * function importing a client not listed here fails the guard until it is added (with its
 * actions, if they are not the command's name).
 */
const SERVICE_PREFIX: Record<string, string> = {
  '@aws-sdk/client-dynamodb': 'dynamodb',
  '@aws-sdk/lib-dynamodb': 'dynamodb',
  '@aws-sdk/client-dynamodb-streams': 'dynamodb',
  '@aws-sdk/client-s3': 's3',
  '@aws-sdk/client-eventbridge': 'events',
  '@aws-sdk/client-secrets-manager': 'secretsmanager',
  '@aws-sdk/client-sts': 'sts',
  '@aws-sdk/client-sqs': 'sqs',
  '@aws-sdk/client-sns': 'sns',
  '@aws-sdk/client-ssm': 'ssm',
  '@aws-sdk/client-kms': 'kms',
  '@aws-sdk/client-lambda': 'lambda',
};
const DYNAMODB_PACKAGES = new Set(['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb']);

/**
 * Operations whose IAM actions are not their own name (a command's name without `Command`).
 * DynamoDB: the document client's short names, and TransactWriteItems authorized by its steps
 * (DynamoDB developer guide, "Using IAM policies with DynamoDB transactions").
 * S3: the Permissions section of each operation in the Amazon S3 API reference and the Service
 * Authorization Reference's "Actions, resources, and condition keys for Amazon S3": HeadObject
 * needs s3:GetObject; CreateMultipartUpload, UploadPart and CompleteMultipartUpload need
 * s3:PutObject ("Multipart upload API and permissions", S3 user guide); ListParts is
 * s3:ListMultipartUploadParts; ListObjectsV2 is s3:ListBucket; ListMultipartUploads is
 * s3:ListBucketMultipartUploads; DeleteObjects needs s3:DeleteObject for each key; CopyObject
 * and UploadPartCopy read the source (s3:GetObject) and write the target (s3:PutObject).
 */
const ACTIONS: Record<string, Record<string, string[]>> = {
  dynamodb: {
    BatchGet: ['BatchGetItem'],
    Get: ['GetItem'],
    Put: ['PutItem'],
    Update: ['UpdateItem'],
    Delete: ['DeleteItem'],
    BatchWrite: ['BatchWriteItem'],
    TransactWriteItems: [],
    TransactWrite: [],
    TransactGetItems: ['GetItem'],
    TransactGet: ['GetItem'],
  },
  s3: {
    HeadObject: ['GetObject'],
    CreateMultipartUpload: ['PutObject'],
    UploadPart: ['PutObject'],
    CompleteMultipartUpload: ['PutObject'],
    ListParts: ['ListMultipartUploadParts'],
    ListObjects: ['ListBucket'],
    ListObjectsV2: ['ListBucket'],
    ListMultipartUploads: ['ListBucketMultipartUploads'],
    DeleteObjects: ['DeleteObject'],
    CopyObject: ['GetObject', 'PutObject'],
    UploadPartCopy: ['GetObject', 'PutObject'],
  },
  // Lambda's Invoke API is authorized as lambda:InvokeFunction (Service Authorization Reference, AWS Lambda).
  lambda: { Invoke: ['InvokeFunction'] },
};

/**
 * Grants that change what an action answers without being an action of their own, so code that
 * calls the action may hold them: with s3:ListBucket, a HEAD or GET of a missing key is 404,
 * without it 403 (Amazon S3 API reference, HeadObject and GetObject: Permissions).
 */
export const HONOURED: Record<string, readonly string[]> = {
  's3:ListBucket': ['s3:GetObject'],
};

/** Keys of a TransactItem → the action of that step. */
const STEP_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

/** The IAM actions an SDK command of `module` needs, or undefined if the name is no command of a known client. */
export function actionsOfCommand(module: string, name: string): string[] | undefined {
  if (!name.endsWith('Command')) return undefined;
  const service = SERVICE_PREFIX[module];
  if (service === undefined) {
    if (module.startsWith('@aws-sdk/client-'))
      throw new Error(
        `test/guard/aws-actions.ts: ${module} is an AWS client the guard does not know: add its IAM prefix to SERVICE_PREFIX`,
      );
    return undefined;
  }
  const operation = name.slice(0, -'Command'.length);
  return (ACTIONS[service]?.[operation] ?? [operation]).map((action) => `${service}:${action}`);
}

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
const isCode = (path: string) => /\.(ts|js|mjs)$/.test(path) && !path.endsWith('.d.ts');

/** Does the package in `directory` depend on an AWS SDK client (so it can call AWS by itself)? */
const followedPackages = new Map<string, boolean>();
function callsAws(directory: string): boolean {
  let known = followedPackages.get(directory);
  if (known === undefined) {
    const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    const names = ['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((field) => Object.keys(manifest[field] ?? {}));
    known = names.some((name) => name in SERVICE_PREFIX || name.startsWith('@aws-sdk/client-'));
    followedPackages.set(directory, known);
  }
  return known;
}

/** An `exports` entry's file for `import` (conditions `import`, `node`, `default`, in that order). */
function exportTarget(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (entry === null || typeof entry !== 'object') return undefined;
  const conditions = entry as Record<string, unknown>;
  for (const condition of ['import', 'node', 'default']) {
    const target = exportTarget(conditions[condition]);
    if (target) return target;
  }
  return undefined;
}

/** A bare specifier (`pkg/sub`) as the file Node would import, when the package is one to follow. */
function resolvePackage(fromFile: string, specifier: string): string | undefined {
  if (specifier.startsWith('node:') || specifier.startsWith('@aws-sdk/') || specifier.startsWith('@smithy/')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  const subpath = `.${specifier.slice(name.length)}`;
  for (let directory = dirname(fromFile); ; directory = dirname(directory)) {
    const candidate = join(directory, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) {
      if (!callsAws(candidate)) return undefined;
      const manifest = JSON.parse(readFileSync(join(candidate, 'package.json'), 'utf8')) as {
        exports?: Record<string, unknown>;
        module?: string;
        main?: string;
      };
      const target = manifest.exports
        ? exportTarget(manifest.exports[subpath])
        : subpath === '.'
          ? (manifest.module ?? manifest.main)
          : subpath;
      if (!target) throw new Error(`${relative(projectRoot, fromFile)}: cannot resolve ${specifier} for import`);
      return join(candidate, target);
    }
    if (directory === dirname(directory)) return undefined;
  }
}

/** A module specifier as written in `from`, made an absolute path of code (or left as a package name). */
function resolveModule(fromFile: string, specifier: string): string {
  let base: string | undefined;
  if (specifier.startsWith('.')) base = resolve(dirname(fromFile), specifier);
  for (const [prefix, directory] of ALIASES)
    if (specifier.startsWith(prefix)) base = join(projectRoot, directory, specifier.slice(prefix.length));
  if (base === undefined) return resolvePackage(fromFile, specifier) ?? specifier;
  // TypeScript's `./x.js` names ./x.ts.
  const candidates = [base, `${base}.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts')];
  return candidates.find((candidate) => isCode(candidate) && existsSync(candidate)) ?? specifier; // JSON, or something else without code
}

function parse(path: string): ParsedFile {
  const known = parsed.get(path);
  if (known) return known;
  const kind = path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true, kind);
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

/** What a reachable set of declarations asks of AWS, and where each action was seen. */
export interface Analysis {
  /** IAM action (`dynamodb:Query`, `s3:GetObject`, …) → where the code asks for it (`file:line`). */
  actions: Map<string, string[]>;
  /** Declarations walked, as `file#name` (for the guard's own sanity checks). */
  visited: Set<string>;
}

const analyses = new Map<string, Analysis>();

/** The actions the code reachable from `entryFile` (all of its top level) can ask for (cached: the source does not change in a run). */
export function actionsReachableFrom(entryFile: string): Analysis {
  let analysis = analyses.get(entryFile);
  if (!analysis) {
    analysis = analyse(entryFile);
    analyses.set(entryFile, analysis);
  }
  return analysis;
}

function analyse(entryFile: string): Analysis {
  const actions = new Map<string, string[]>();
  const visited = new Set<string>();
  const note = (action: string, file: string, node: ts.Node | undefined) => {
    const sf = node?.getSourceFile();
    const where = sf && node ? `:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}` : '';
    actions.set(action, [...(actions.get(action) ?? []), `${relative(projectRoot, file)}${where}`]);
  };

  function visitExport(module: string, name: string, trail = new Set<string>()): void {
    if (!isCode(module)) return;
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
    if (reexport?.module === '') visitLocal(file, reexport.name, undefined);
    else if (reexport) visitExport(reexport.module, reexport.name, trail);
    else for (const star of file.starExports) visitExport(star, name, trail);
  }

  /** A name used in `file` (at `at`): its own declaration, or what it imports. */
  function visitLocal(file: ParsedFile, name: string, at: ts.Node | undefined): void {
    if (file.declarations.has(name)) {
      visitDeclaration(file, name);
      return;
    }
    const binding = file.imports.get(name);
    if (!binding) return; // a parameter, a local variable, a global
    const commandActions = actionsOfCommand(binding.module, binding.name);
    if (commandActions) {
      for (const action of commandActions) note(action, file.path, at);
      return;
    }
    visitExport(binding.module, binding.name);
  }

  function visitDeclaration(file: ParsedFile, name: string): void {
    const key = `${relative(projectRoot, file.path)}#${name}`;
    if (visited.has(key)) return;
    visited.add(key);
    for (const node of file.declarations.get(name) ?? []) walk(file, node, false);
  }

  /** The SDK package a `new X(…)` constructs a command of, when X is imported from one. */
  function commandPackageOf(file: ParsedFile, node: ts.NewExpression): string | undefined {
    if (!ts.isIdentifier(node.expression)) return undefined;
    const binding = file.imports.get(node.expression.text);
    return binding && binding.module in SERVICE_PREFIX && binding.name.endsWith('Command') ? binding.module : undefined;
  }

  /** `inOtherService`: inside the input of a command that is not DynamoDB's (its `Delete` is no transaction step). */
  function walk(file: ParsedFile, node: ts.Node, inOtherService: boolean): void {
    // `class X extends Y` names a value (ExpressionWithTypeArguments is a TypeNode to the compiler).
    const typeOnly =
      ts.isTypeNode(node) &&
      !(ts.isExpressionWithTypeArguments(node) && ts.isHeritageClause(node.parent) && node.parent.token === ts.SyntaxKind.ExtendsKeyword);
    if (typeOnly || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    if (ts.isIdentifier(node)) {
      if (isReference(node)) visitLocal(file, node.text, node);
      return;
    }
    if (ts.isNewExpression(node)) {
      const module = commandPackageOf(file, node);
      if (module !== undefined && !DYNAMODB_PACKAGES.has(module)) inOtherService = true;
    }
    if (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) {
      const key = ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) ? node.name.text : undefined;
      if (!inOtherService && key !== undefined && key in STEP_ACTIONS && ts.isObjectLiteralExpression(node.parent)) {
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
    ts.forEachChild(node, (child) => walk(file, child, inOtherService));
  }

  const entry = parse(entryFile);
  for (const name of entry.declarations.keys()) visitDeclaration(entry, name);
  for (const exported of entry.reexports.keys()) visitExport(entryFile, exported);
  return { actions, visited };
}
