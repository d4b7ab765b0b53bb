/**
 * The agreement guard (fast tier: no database, no service): every route of the route table
 * (functions/routes.ts) has everything that otherwise only the slow suite notices when someone
 * forgets it, so a forgotten piece fails in seconds:
 *
 * - its handler module under functions/ exists and exports `handler` (a function) and its
 *   `operation` (with a success status), and the route line's type-only import names the same
 *   module as its path (functions/routes.ts: `handlerAt`);
 * - its operation's example request (from which the role matrix, the 503 test and the bench make
 *   their requests) gives every path parameter of the route;
 * - its row in the completeness check (test/completeness/routes.test.ts: rows made from the
 *   route table itself, or listed there by `METHOD /path`), and the operation that check reads;
 * - its bench entry (bench/endpoints.ts, `endpoints`, named `METHOD /path` or `METHOD /path
 *   (variant)`), for every route that touches the table (the bench measures those);
 * - its row in docs/api.md's endpoint table (§4), linking to a section that starts with it;
 *
 * And for every function of the stack (each route's, the fallback, the background worker, its
 * sweeper, the upload finaliser): IAM grants it exactly the AWS actions its code can call, no
 * fewer and no more. What the code can call is read from the code (test/guard/aws-actions.ts:
 * the SDK commands, transaction steps and read-backs it reaches, Powertools' idempotency layer
 * read from the library's own source); what it is granted is what the route table declares
 * (`dynamodbActionsOf`, `s3ActionsOf`, `pages`), from which the stack's policies and the local
 * runtime's permissions (lib/local/permissions.ts, lib/local/s3.ts) are both made.
 *
 * Files are parsed (TypeScript's parser, the Markdown table's rows), not searched for words: a
 * route name in a comment is no row. Rows for routes that do not exist fail too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { Scene } from '#core/http/operation';
import {
  allFunctions,
  dynamodbActionsOf,
  IDEMPOTENCY_ACTIONS,
  type Route,
  reindexFunction,
  routes,
  s3ActionsOf,
  signInRoutes,
  workerFunction,
} from '#functions/routes';
import { exampleCall } from '#lib/examples';
import { loadOperations } from '#lib/openapi/document';
import { actionsReachableFrom, HONOURED, projectRoot } from './aws-actions';

const read = (path: string) => readFileSync(join(projectRoot, path), 'utf8');
const parseTs = (path: string) => ts.createSourceFile(path, read(path), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
const routeKey = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;
/** Routes that read or write the table: the 503 test and the bench cover these. */
const touchesTable = (route: Route) => route.dynamodb.length > 0;

/** Every node below `source` (itself included), depth first. */
function nodesOf(source: ts.Node): ts.Node[] {
  const all: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    all.push(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return all;
}

/** The initializer of the variable `name` declared in `path` (as written, `as`/`satisfies` removed). */
function initializerOf(path: string, name: string): ts.Expression {
  const declaration = nodesOf(parseTs(path)).find(
    (node): node is ts.VariableDeclaration => ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === name,
  );
  if (!declaration?.initializer) throw new Error(`${path}: no variable \`${name}\` with a value (the guard reads its rows there)`);
  let expression = declaration.initializer;
  while (ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression) || ts.isParenthesizedExpression(expression)) {
    expression = expression.expression;
  }
  return expression;
}

/** bench/endpoints.ts: `METHOD /path` of every entry (its variant, in parentheses, dropped). */
function benchEntries(): string[] {
  const list = initializerOf('bench/endpoints.ts', 'endpoints');
  if (!ts.isArrayLiteralExpression(list)) throw new Error('bench/endpoints.ts: `endpoints` is not an array literal');
  return list.elements.map((element) => {
    const name = ts.isObjectLiteralExpression(element)
      ? element.properties.find(
          (p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'name',
        )
      : undefined;
    if (!name || !ts.isStringLiteralLike(name.initializer))
      throw new Error(`bench/endpoints.ts: an entry without a literal name: ${element.getText().slice(0, 80)}`);
    const match = /^(GET|POST|PUT|DELETE) (\/\S*)( \(.+\))?$/.exec(name.initializer.text);
    if (!match)
      throw new Error(`bench/endpoints.ts: entry name "${name.initializer.text}" is not "METHOD /path" or "METHOD /path (variant)"`);
    return `${match[1]} ${match[2]}`;
  });
}

/**
 * test/completeness/routes.test.ts: the `METHOD /path` of each row it checks. Its rows are made
 * from the route table (`it.each(routes.map(…))`): then every route has one; otherwise they are
 * the `METHOD /path` strings written in its `it.each(…)`.
 */
function completenessRows(): { fromRouteTable: boolean; listed: string[] } {
  const path = 'test/completeness/routes.test.ts';
  const source = parseTs(path);
  const importsRoutes = source.statements.some(
    (s) =>
      ts.isImportDeclaration(s) &&
      ts.isStringLiteral(s.moduleSpecifier) &&
      s.moduleSpecifier.text === '#functions/routes' &&
      s.importClause?.namedBindings !== undefined &&
      ts.isNamedImports(s.importClause.namedBindings) &&
      s.importClause.namedBindings.elements.some((e) => e.name.text === 'routes' && !e.propertyName),
  );
  const eachCalls = nodesOf(source).filter(
    (node): node is ts.CallExpression =>
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'each' &&
      ts.isIdentifier(node.expression.expression) &&
      ['it', 'test'].includes(node.expression.expression.text),
  );
  if (eachCalls.length === 0) throw new Error(`${path}: no it.each(…) rows`);
  const fromRouteTable =
    importsRoutes &&
    eachCalls.some((call) => {
      const rows = call.arguments[0];
      return (
        rows !== undefined &&
        ts.isCallExpression(rows) &&
        ts.isPropertyAccessExpression(rows.expression) &&
        rows.expression.name.text === 'map' &&
        ts.isIdentifier(rows.expression.expression) &&
        rows.expression.expression.text === 'routes'
      );
    });
  const listed = eachCalls.flatMap((call) =>
    nodesOf(call.arguments[0] as ts.Node)
      .filter(ts.isStringLiteralLike)
      .map((literal) => literal.text)
      .filter((text) => /^(GET|POST|PUT|DELETE) \//.test(text)),
  );
  return { fromRouteTable, listed };
}

/** docs/api.md §4's endpoint table: `METHOD /path` → the anchor it links to; and the doc's sections by anchor. */
function documentedEndpoints(): { rows: Map<string, string>; sections: Map<string, string> } {
  const doc = read('docs/api.md');
  const start = doc.indexOf('\n## 4. Endpoints\n');
  if (start < 0) throw new Error('docs/api.md: no "## 4. Endpoints" section');
  const table = doc.slice(start).split('\n').slice(2);
  const rows = new Map<string, string>();
  for (const line of table) {
    if (line.startsWith('### ')) break;
    const row = /^\| \[`(GET|POST|PUT|DELETE) (\/[^`]*)`\]\(#([^)]+)\) \|/.exec(line);
    if (row) rows.set(`${row[1]} ${row[2]}`, row[3]!);
  }
  // GitHub's anchors: lower case, punctuation dropped, spaces to hyphens.
  const slug = (heading: string) =>
    heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
  const sections = new Map<string, string>();
  const parts = doc.split(/^#{2,4} /m).slice(1);
  for (const part of parts) {
    const [heading, ...body] = part.split('\n');
    sections.set(slug(heading!), body.join('\n'));
  }
  return { rows, sections };
}

// What the completeness check reads. It fails to load when a handler module lacks its exports:
// that route's own test names the module, and the last test here the error.
let operationsError: unknown;
const operations = await loadOperations().catch((error: unknown) => {
  operationsError = error;
  return undefined;
});
/** functions/routes.ts: each `handlerAt<typeof import('./X')>('Y')`, as [X, Y]. */
const handlerSpellings = [...read('functions/routes.ts').matchAll(/handlerAt<typeof import\('\.\/([^']+)'\)>\('([^']+)'\)/g)].map(
  (m) => [m[1]!, m[2]!] as const,
);
/** A scene whose every id is a valid one, for making examples concrete. */
const placeholderScene: Scene = {
  repository: 'r0000000000000000000001',
  folder: 'f0000000000000000000001',
  document: 'd0000000000000000000001',
  trashedDocument: 'd0000000000000000000002',
  member: 'someone',
  upload: 'r0000000000000000000001u000000000000000001',
  sentUpload: 'r0000000000000000000001u000000000000000002',
  link: 'r0000000000000000000001l000000000000000001',
  linkToken: `r0000000000000000000001l000000000000000001.d0000000000000000000001.${'A'.repeat(32)}`,
  unique: 'unique',
};
const completeness = completenessRows();
const bench = benchEntries();
const docs = documentedEndpoints();
const keys = new Set(routes.map(routeKey));

describe('the agreement guard: every route has every piece', () => {
  it.each(routes.map((route) => [route.name, route] as const))('%s', async (_, route) => {
    const where = `${route.name} (${routeKey(route)})`;

    const file = join(projectRoot, 'functions', `${route.handler}.ts`);
    expect(existsSync(file), `${where}: functions/${route.handler}.ts, its handler module`).toBe(true);
    const module = (await import(pathToFileURL(file).href)) as { handler?: unknown; operation?: { success?: { status?: unknown } } };
    expect.soft(typeof module.handler, `${where}: functions/${route.handler}.ts exports \`handler\``).toBe('function');
    expect
      .soft(typeof module.operation?.success?.status, `${where}: functions/${route.handler}.ts exports its \`operation\``)
      .toBe('number');

    expect
      .soft(handlerSpellings, `${where}: its route line's type-only import names functions/${route.handler}.ts`)
      .toContainEqual([route.handler, route.handler]);
    const example = operations?.get(route.name)?.example;
    expect.soft(example && (() => exampleCall(route, example, placeholderScene)), `${where}: its example request`).not.toThrow();
    if (touchesTable(route)) {
      expect.soft(bench, `${where}: its entry in bench/endpoints.ts (\`endpoints\`)`).toContain(routeKey(route));
    }
    if (!completeness.fromRouteTable) {
      expect.soft(completeness.listed, `${where}: its row in test/completeness/routes.test.ts`).toContain(routeKey(route));
    }
    if (operations) {
      const status = operations.get(route.name)?.success.status;
      expect.soft(status, `${where}: the operation test/completeness/routes.test.ts reads`).toBeTypeOf('number');
    }

    const anchor = docs.rows.get(routeKey(route));
    expect.soft(anchor, `${where}: its row in docs/api.md's endpoint table (§4)`).toBeDefined();
    if (anchor !== undefined) {
      const section = docs.sections.get(anchor);
      expect.soft(section, `${where}: docs/api.md has the section #${anchor} its row links to`).toBeDefined();
      const firstLine = section?.split('\n').find((line) => line.trim() !== '') ?? '';
      expect
        .soft(firstLine, `${where}: docs/api.md #${anchor} starts with the route`)
        .toMatch(new RegExp(`^\`${route.method} ${route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\`?]`));
    }
  });

  it('has no row for a route that does not exist', () => {
    expect(
      handlerSpellings.filter(([imported, path]) => imported !== path),
      'functions/routes.ts: route lines whose type-only import and path name different modules',
    ).toEqual([]);
    expect(
      completeness.listed.filter((key) => !keys.has(key)),
      'test/completeness/routes.test.ts',
    ).toEqual([]);
    expect(
      bench.filter((key) => !keys.has(key)),
      'bench/endpoints.ts',
    ).toEqual([]);
    expect(
      [...docs.rows.keys()].filter((key) => !keys.has(key)),
      "docs/api.md's endpoint table",
    ).toEqual([]);
  });

  it('reads what it checks: the files parse into rows, and the source analysis sees requests', () => {
    expect(operationsError, 'loading every route’s operation (lib/openapi/document.ts: loadOperations)').toBeUndefined();
    expect(handlerSpellings).toHaveLength(routes.length);
    expect(docs.rows.size).toBe(routes.length);
    expect(completeness.fromRouteTable || completeness.listed.length >= routes.length).toBe(true);
    // What the analysis reads: a read is BatchGetItem, a list adds Query, a create writes in a
    // transaction; a file route's reads; the worker's events (an analysis that stopped following
    // imports would find nothing, and then every grant would be reported unused).
    const actionsOf = (name: string) => [...actionsReachableFrom(codeOf(functionNamed(name))).actions.keys()].sort();
    expect(actionsOf('GetDocument')).toEqual(['dynamodb:BatchGetItem']);
    expect(actionsOf('ListFolders')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:Query', 'secretsmanager:GetSecretValue']);
    expect(actionsOf('CreateDocument')).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:ConditionCheckItem']));
    expect(actionsOf('GetUpload')).toEqual(expect.arrayContaining(['s3:GetObject', 's3:ListMultipartUploadParts']));
    expect(actionsOf('Worker')).toEqual(expect.arrayContaining(['events:PutEvents', 's3:ListBucket', 'dynamodb:BatchWriteItem']));
    expect(actionsOf('GetOpenApi')).toEqual([]);
    // S3's DeleteObjects takes a `Delete` too: no DynamoDB DeleteItem in removing objects.
    const removingObjects = actionsReachableFrom(join(projectRoot, 'functions/core/files/objects.ts')).actions;
    expect([...removingObjects.keys()].sort()).toEqual([
      's3:AbortMultipartUpload',
      's3:DeleteObject',
      's3:ListBucket',
      's3:ListBucketMultipartUploads',
    ]);
  });
});

type DeclaredFunction = ReturnType<typeof allFunctions>[number];
const codeOf = (fn: { readonly handler: string }) => join(projectRoot, 'functions', `${fn.handler}.ts`);
const functionNamed = (name: string): DeclaredFunction => allFunctions().find((fn) => fn.name === name)!;

/**
 * Grants of services other than the table and the bucket, which the stack makes from the route
 * table's other declarations (test/infra/stack.test.ts holds the template to them): the action,
 * who holds it, and where. A function that starts calling another service gets a line here with
 * its grant in lib/stack.
 */
const OTHER_GRANTS: { action: string; holds: (fn: DeclaredFunction) => boolean; where: string }[] = [
  {
    action: 'secretsmanager:GetSecretValue',
    holds: (fn) => ('pages' in fn && fn.pages === true) || signInRoutes.some((route) => route.name === fn.name),
    where: 'the paging-token secret, to a route with `pages` and to the sign-in routes (their cookie key; lib/stack/documents-stack.ts)',
  },
  {
    action: 'events:PutEvents',
    holds: (fn) => fn.name === workerFunction.name,
    where: "the change events' bus, to the worker (lib/stack/background-worker.ts)",
  },
  {
    action: 'lambda:InvokeFunction',
    holds: (fn) => fn.name === reindexFunction.name,
    where: 'the rebuild invoking itself until done (lib/stack/search-index.ts)',
  },
];

/**
 * What IAM grants `fn`. DynamoDB and S3: the route table's lists, from which the stack's policies
 * (lib/stack/route-function.ts) and the local runtime's permissions (lib/local/permissions.ts,
 * lib/local/s3.ts) are both made; other services: OTHER_GRANTS.
 */
function grantsOf(fn: DeclaredFunction): string[] {
  return [
    ...dynamodbActionsOf(fn),
    ...s3ActionsOf('s3' in fn ? fn : {}),
    ...OTHER_GRANTS.filter((grant) => grant.holds(fn)).map((grant) => grant.action),
  ];
}

/** Where an action is granted, for the message. */
const grantedIn = (action: string) =>
  /^(dynamodb|s3):/.test(action)
    ? 'functions/routes.ts'
    : (OTHER_GRANTS.find((grant) => grant.action === action)?.where ?? 'lib/stack, and OTHER_GRANTS in test/guard/agreement.test.ts');

/** Where IAM and the code disagree about `fn`, one line per action (none: they agree). */
function disagreements(fn: DeclaredFunction): string[] {
  const calls = actionsReachableFrom(codeOf(fn)).actions;
  const granted = new Set(grantsOf(fn));
  const missing = [...calls]
    .filter(([action]) => !granted.has(action))
    .map(([action, at]) => `${action}: its code calls it (${at.slice(0, 3).join(', ')}), not granted (${grantedIn(action)})`);
  const unused = [...granted]
    .filter((action) => !calls.has(action) && !(HONOURED[action] ?? []).some((honoured) => calls.has(honoured)))
    .map((action) => `${action}: granted (${grantedIn(action)}), its code never calls it`);
  return [...missing, ...unused];
}

describe('IAM: every function is granted exactly what its code can call', () => {
  // The web app's sign-in routes too, as the stack makes their functions (lib/stack/documents-stack.ts:
  // no `method`, the Idempotency-Key layer is the API's): they call Cognito over HTTPS and read the paging secret.
  const signInFunctions = signInRoutes.map((route) => ({ name: route.name, handler: route.handler, dynamodb: [] }) as DeclaredFunction);
  it.each([...allFunctions(), ...signInFunctions].map((fn) => [fn.name, fn] as const))('%s', (_, fn) => {
    expect(disagreements(fn), `${fn.name} (functions/${fn.handler}.ts): its grants against what its code can call`).toEqual([]);
  });

  it("grants write routes exactly what Powertools' idempotency layer calls, read from the library's source", () => {
    const layer = actionsReachableFrom(join(projectRoot, 'functions/core/http/idempotency.ts')).actions;
    expect([...layer.keys()].sort(), 'IDEMPOTENCY_ACTIONS (functions/routes.ts)').toEqual([...IDEMPOTENCY_ACTIONS].sort());
    for (const at of layer.values()) expect(at.join(' ')).toContain('node_modules/@aws-lambda-powertools/idempotency/');
  });

  describe('fails, naming the function and the action, when they disagree', () => {
    const planted = (name: string, change: Partial<Route>) => ({ ...functionNamed(name), ...change }) as DeclaredFunction;

    it('an idempotency action missing', () => {
      const kept = [...IDEMPOTENCY_ACTIONS];
      (IDEMPOTENCY_ACTIONS as string[]).splice(kept.indexOf('dynamodb:DeleteItem'), 1);
      try {
        // CreateRepository's own writes delete nothing: only the idempotency layer needs DeleteItem.
        expect(disagreements(functionNamed('CreateRepository'))).toEqual([
          expect.stringMatching(
            /^dynamodb:DeleteItem: its code calls it \(.*DynamoDBPersistenceLayer\.js:\d+\), not granted \(functions\/routes\.ts\)$/,
          ),
        ]);
      } finally {
        (IDEMPOTENCY_ACTIONS as string[]).splice(0, Infinity, ...kept);
      }
    });

    it('a grant the code never uses, DynamoDB or S3', () => {
      const reader = functionNamed('GetDocument') as Route;
      expect(disagreements(planted('GetDocument', { dynamodb: [...reader.dynamodb, 'dynamodb:Query'], s3: ['s3:PutObject'] }))).toEqual([
        'dynamodb:Query: granted (functions/routes.ts), its code never calls it',
        's3:PutObject: granted (functions/routes.ts), its code never calls it',
      ]);
    });

    it("a grant of another service: the worker's events, a list's paging secret", () => {
      expect(disagreements(planted('Sweeper', { name: 'Worker' }))).toContainEqual(
        "events:PutEvents: granted (the change events' bus, to the worker (lib/stack/background-worker.ts)), its code never calls it",
      );
      expect(disagreements(planted('ListMembers', { pages: false }))).toEqual([
        expect.stringMatching(/^secretsmanager:GetSecretValue: its code calls it \(functions\/core\/paging\.ts:\d+\), not granted/),
      ]);
    });

    it('s3:ListBucket with code that reads objects: it is what makes a missing key 404, not 403', () => {
      expect(disagreements(planted('GetUpload', { s3: ['s3:GetObject', 's3:ListMultipartUploadParts', 's3:ListBucket'] }))).toEqual([]);
      expect(disagreements(planted('StartUpload', { s3: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListBucket'] }))).toEqual([
        's3:ListBucket: granted (functions/routes.ts), its code never calls it',
      ]);
    });

    it('an S3 grant missing', () => {
      expect(disagreements(planted('GetDocumentContent', { s3: [] }))).toEqual([
        expect.stringMatching(/^s3:GetObject: its code calls it \(functions\/core\/use-cases\/content\.ts:\d+/),
      ]);
    });
  });
});
