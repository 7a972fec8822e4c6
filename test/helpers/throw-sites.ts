// Which coded errors each route's handler can reach, read from the source with the TypeScript
// compiler: every named function, method and arrow function of src/ with the codes it throws
// itself (`new ApiError('code', …)`) and the functions it names — resolved
// the way the module system resolves them: a declaration of the same file, or a relative import
// (named or namespace) of another. A handler reaches the codes of everything it names,
// transitively. Calls through values the analysis cannot name (a method of an object held in a
// variable, a function passed in as a parameter) are not followed.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);
const CODED_CALLS = new Set(['ApiError']);

interface Unit {
  where: string;
  codes: Set<string>;
  /** Functions named in the body, as [file, name]. */
  names: Array<[string, string]>;
}

export interface RouteReach {
  key: string;
  where: string;
  /** Each code the handler can reach, with one chain of calls that reaches it. */
  codes: Map<string, string>;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

function nameOf(node: ts.Node): string | undefined {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name && ts.isIdentifier(node.name)) return node.name.text;
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && node.parent) {
    const parent = node.parent;
    if (
      (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
      ts.isIdentifier(parent.name)
    )
      return parent.name.text;
  }
  return undefined;
}

/** Every route of src/ with the codes its handler can reach. */
export function routeReach(root: string): RouteReach[] {
  const units = new Map<string, Unit[]>(); // `${file}#${name}`
  const handlers: Array<{ key: string; unit: Unit }> = [];
  const surfacePaths = routePathProperties(root);
  for (const path of sources(join(root, 'src'))) {
    const file = normalize(relative(root, path));
    const source = ts.createSourceFile(file, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const imported = new Map<string, [string, string]>(); // local name → [file, exported name]
    const namespaces = new Map<string, string>(); // `S` → file
    const constants = new Map<string, string>();
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const spec = statement.moduleSpecifier.text;
      if (!spec.startsWith('.')) continue;
      const target = normalize(join(dirname(file), spec));
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.set(bindings.name.text, target);
      if (bindings && ts.isNamedImports(bindings))
        for (const el of bindings.elements) imported.set(el.name.text, [target, (el.propertyName ?? el.name).text]);
    }
    const resolve = (name: string): [string, string] => imported.get(name) ?? [file, name];
    const where = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const scan = (body: ts.Node, unit: Unit): void => {
      const visit = (node: ts.Node): void => {
        if (ts.isNewExpression(node) || ts.isCallExpression(node)) {
          const callee = node.expression;
          const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
          const first = node.arguments?.[0];
          if (name && CODED_CALLS.has(name) && first && ts.isStringLiteral(first)) unit.codes.add(first.text);
        }
        if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && namespaces.has(node.expression.text)) {
          unit.names.push([namespaces.get(node.expression.text)!, node.name.text]);
        } else if (ts.isIdentifier(node) && !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)) {
          unit.names.push(resolve(node.text));
        }
        ts.forEachChild(node, visit);
      };
      visit(body);
    };
    const collect = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.isStringLiteral(node.initializer))
        constants.set(node.name.text, node.initializer.text);
      ts.forEachChild(node, collect);
    };
    collect(source);
    const visit = (node: ts.Node): void => {
      const name = nameOf(node);
      if (name && 'body' in node && node.body) {
        const unit: Unit = { where: where(node), codes: new Set(), names: [] };
        scan(node.body as ts.Node, unit);
        const key = `${file}#${name}`;
        units.set(key, [...(units.get(key) ?? []), unit]);
      }
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        ROUTE_METHODS.has(node.expression.name.text) &&
        node.arguments.length === 3
      ) {
        const [first, , handler] = node.arguments;
        const url =
          first &&
          (ts.isStringLiteral(first)
            ? first.text
            : ts.isIdentifier(first)
              ? (constants.get(first.text) ?? resolveConstant(root, resolve(first.text)))
              : undefined);
        // A factory's route (`surface.path`, `${surface.prefix}/reissue`): one handler for each
        // path the surfaces give that property.
        const urls = url !== undefined ? [url] : first ? factoryUrls(first, surfacePaths) : [];
        if (handler) {
          const unit: Unit = { where: where(node), codes: new Set(), names: [] };
          scan(handler, unit);
          for (const each of urls) handlers.push({ key: `${node.expression.name.text.toUpperCase()} ${each}`, unit });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }

  // The transitive closure by fixpoint: a unit reaches its own codes and those of every unit it
  // names, until nothing changes (cycles need no special care).
  const all = [...[...units.values()].flat(), ...handlers.map((h) => h.unit)];
  const reach = new Map<Unit, Map<string, string>>(all.map((unit) => [unit, new Map([...unit.codes].map((code) => [code, unit.where]))]));
  for (let changed = true; changed;) {
    changed = false;
    for (const unit of all) {
      const codes = reach.get(unit)!;
      for (const [file, name] of unit.names) {
        for (const callee of units.get(`${file}#${name}`) ?? []) {
          if (callee === unit) continue;
          for (const [code, path] of reach.get(callee)!) {
            if (codes.has(code)) continue;
            codes.set(code, `${name} → ${path}`);
            changed = true;
          }
        }
      }
    }
  }
  return handlers.map(({ key, unit }) => ({ key, where: unit.where, codes: reach.get(unit)! }));
}

/** An imported string constant (a route path declared in another file). */
function resolveConstant(root: string, [file, name]: [string, string]): string | undefined {
  const text = readFileSync(join(root, file), 'utf8');
  return new RegExp(`const ${name} = '([^']+)'`).exec(text)?.[1];
}

/** Each property given a route path in an object literal (a factory's surface: `path: '/api/v1/…'`), by the property's name. */
function routePathProperties(root: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const path of sources(join(root, 'src'))) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (
        ts.isPropertyAssignment(node) &&
        ts.isIdentifier(node.name) &&
        ts.isStringLiteral(node.initializer) &&
        /^\/(api|admin)\//.test(node.initializer.text)
      ) {
        found.set(node.name.text, [...(found.get(node.name.text) ?? []), node.initializer.text]);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** The paths of a factory's route: `surface.path`, or `${surface.prefix}/reissue`, with each path the surfaces give the property. */
function factoryUrls(first: ts.Expression, surfacePaths: Map<string, string[]>): string[] {
  if (ts.isPropertyAccessExpression(first)) return surfacePaths.get(first.name.text) ?? [];
  if (ts.isTemplateExpression(first) && first.head.text === '' && first.templateSpans.length === 1) {
    const [span] = first.templateSpans;
    if (span && ts.isPropertyAccessExpression(span.expression))
      return (surfacePaths.get(span.expression.name.text) ?? []).map((p) => `${p}${span.literal.text}`);
  }
  return [];
}
