// How far one value travels: one parameter of one function is followed, statically, through the
// project's own code (the TypeScript checker resolves every call it is passed to), and the files
// the walk enters are counted as "rooms". The trip is the list of files of the functions
// entered, depth-first, with consecutive repeats collapsed ("stays"); a stay in a file seen
// before is a "return". Many stays and returns for few rooms is a value that goes back and forth.
//
//   npx tsx bench/data-path.ts lib/chat/handler.ts:handleChatRequest:request [--json] [--stops N]
//
// A variable is tracked once its initializer (or an assignment) mentions a tracked one; a call is
// followed when an argument mentions one, or when it calls a closure of the function being walked
// that reads a tracked variable it captured. A function's body is walked when it runs: when a
// call enters it, or where it is written if it runs there (a callback handed to a call, or one
// invoked at once); a function only defined (an object's method, a closure kept for later) is not
// walked until something calls it. A call through an interface or object type (`rail.balance()`
// where `rail: PaymentRail`, `writer.payment()` where `writer: LineWriter`) is followed into the
// object literals that implement it: before the walk, every object literal of the project whose
// type (contextual, or the declared type of the variable it initializes or of the function that
// returns it) is an interface or type alias declared in the project is indexed by that type and
// member name, and the call enters each implementation of the member, in source order (the stay is
// marked "via" the type). What it does not see: a value parked in a field or a module's state and
// read elsewhere, calls through function-typed fields whose value is not such an object literal
// (a parameter, a class instance, a function passed in), and anything in node_modules, a .d.ts or
// tests/.
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

type Entered = { file: string; name: string; via: string | undefined };
type Stay = { file: string; functions: string[]; via?: string[] };
/** An interface or type alias of the project: its name, and the object-literal functions implementing each member. */
type Implemented = { name: string; members: Map<string, ts.FunctionLikeDeclaration[]> };
type Implementations = Map<ts.Symbol, Implemented>;
type Callee = { fn: ts.FunctionLikeDeclaration; via: string | undefined };

function fail(message: string): never {
  console.error(`data-path: ${message}`);
  process.exit(2);
}

function parseArguments(argv: string[]): { file: string; fn: string; param: string; json: boolean; stops: number } {
  let json = false;
  let stops = 400;
  const positional: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? "";
    if (arg === "--json") json = true;
    else if (arg === "--stops") stops = Number(argv[++index]);
    else positional.push(arg);
  }
  const match = positional.length === 1 ? /^(.+):([^:]+):([^:]+)$/.exec(positional[0] ?? "") : null;
  if (!match?.[1] || !match[2] || !match[3] || !Number.isInteger(stops) || stops < 1) {
    fail("usage: npx tsx bench/data-path.ts <file>:<function>:<param> [--json] [--stops N]");
  }
  return { file: match[1], fn: match[2], param: match[3], json, stops };
}

function loadProgram(): ts.Program {
  const configPath = resolve(ROOT, "tsconfig.json");
  const read = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (read.error) fail(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT, undefined, configPath);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
}

/** One of the project's own files (not node_modules, a .d.ts or tests/). */
function isProjectFile(source: ts.SourceFile): boolean {
  const path = relative(ROOT, source.fileName);
  return !source.isDeclarationFile && !path.startsWith("..") && !path.split(/[\\/]/).includes("node_modules") && !path.startsWith("tests/");
}

/** A function with a body in one of the project's own files. */
function isProjectFunction(node: ts.Node | undefined): node is ts.FunctionLikeDeclaration {
  if (!node || !ts.isFunctionLike(node) || !("body" in node) || !node.body) return false;
  return isProjectFile(node.getSourceFile());
}

/** An expression without the parentheses and type assertions around it. */
function unwrap(node: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isNonNullExpression(node) || ts.isTypeAssertionExpression(node)) {
    node = node.expression;
  }
  return node;
}

/** The function a declaration stands for: itself, or the arrow/function expression a `const` holds. */
function functionOf(declaration: ts.Declaration): ts.FunctionLikeDeclaration | undefined {
  if (ts.isVariableDeclaration(declaration) && declaration.initializer) {
    const value = unwrap(declaration.initializer);
    return isProjectFunction(value) ? value : undefined;
  }
  if (ts.isClassDeclaration(declaration)) return declaration.members.find((member) => ts.isConstructorDeclaration(member) && isProjectFunction(member)) as ts.ConstructorDeclaration | undefined;
  return isProjectFunction(declaration) ? declaration : undefined;
}

function nameOf(fn: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(fn)) return `new ${fn.parent.name?.text ?? "(class)"}`;
  if (fn.name && ts.isIdentifier(fn.name)) return fn.name.text;
  if (ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name)) return fn.parent.name.text;
  if (ts.isPropertyAssignment(fn.parent) && ts.isIdentifier(fn.parent.name)) return fn.parent.name.text;
  const { line } = fn.getSourceFile().getLineAndCharacterOfPosition(fn.getStart());
  return `(anonymous, line ${line + 1})`;
}

function propertyKey(name: ts.PropertyName | ts.BindingName): string | undefined {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : undefined;
}

/** Every identifier a binding name or a destructuring assignment target introduces. */
function boundIdentifiers(node: ts.Node): ts.Identifier[] {
  if (ts.isIdentifier(node)) return [node];
  const found: ts.Identifier[] = [];
  const visit = (child: ts.Node): void => {
    if (ts.isBindingElement(child)) found.push(...boundIdentifiers(child.name));
    else if (ts.isShorthandPropertyAssignment(child)) found.push(child.name);
    else if (ts.isPropertyAssignment(child)) found.push(...boundIdentifiers(child.initializer));
    else if (ts.isIdentifier(child) && (ts.isArrayLiteralExpression(child.parent) || ts.isSpreadElement(child.parent) || ts.isSpreadAssignment(child.parent))) found.push(child);
    else ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return found;
}

/** The interface or type alias of the project a member signature belongs to (its symbol keys the index), if any. */
function ownerOf(checker: ts.TypeChecker, member: ts.Declaration): { symbol: ts.Symbol; name: string; key: string } | undefined {
  if (!(ts.isPropertySignature(member) || ts.isMethodSignature(member)) || !isProjectFile(member.getSourceFile())) return undefined;
  const key = propertyKey(member.name);
  if (key === undefined) return undefined;
  let owner: ts.Node = member.parent;
  if (ts.isTypeLiteralNode(owner)) {
    // `type T = { ... }`, or one part of `type T = A & { ... }`.
    owner = owner.parent;
    while (ts.isUnionTypeNode(owner) || ts.isIntersectionTypeNode(owner) || ts.isParenthesizedTypeNode(owner)) owner = owner.parent;
    if (!ts.isTypeAliasDeclaration(owner)) return undefined;
  }
  if (!ts.isInterfaceDeclaration(owner) && !ts.isTypeAliasDeclaration(owner)) return undefined;
  const symbol = checker.getSymbolAtLocation(owner.name);
  return symbol ? { symbol, name: owner.name.text, key } : undefined;
}

/** The project function a symbol names (a function declaration, or a `const` holding an arrow or function expression). */
function functionNamed(checker: ts.TypeChecker, symbol: ts.Symbol | undefined): ts.FunctionLikeDeclaration | undefined {
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  for (const declaration of symbol?.declarations ?? []) {
    if (!ts.isFunctionDeclaration(declaration) && !ts.isVariableDeclaration(declaration)) continue;
    const fn = functionOf(declaration);
    if (fn) return fn;
  }
  return undefined;
}

/** The function an object literal's member stands for: `m() {}`, `m: () => {}`, `m: function () {}`, `m: f` or `{ f }`. */
function memberFunction(checker: ts.TypeChecker, member: ts.ObjectLiteralElementLike): ts.FunctionLikeDeclaration | undefined {
  if (ts.isMethodDeclaration(member)) return isProjectFunction(member) ? member : undefined;
  if (ts.isShorthandPropertyAssignment(member)) return functionNamed(checker, checker.getShorthandAssignmentValueSymbol(member));
  if (!ts.isPropertyAssignment(member)) return undefined;
  const value = unwrap(member.initializer);
  if (ts.isArrowFunction(value) || ts.isFunctionExpression(value)) return isProjectFunction(value) ? value : undefined;
  return ts.isIdentifier(value) ? functionNamed(checker, checker.getSymbolAtLocation(value)) : undefined;
}

/** What a function declares it returns (awaited when it is async), or what its contextual type says it returns. */
function declaredReturnType(checker: ts.TypeChecker, fn: ts.SignatureDeclaration): ts.Type | undefined {
  let type: ts.Type | undefined;
  if (fn.type) type = checker.getTypeFromTypeNode(fn.type);
  else if (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) {
    const contextual = checker.getContextualType(fn);
    type = contextual?.getCallSignatures()[0]?.getReturnType();
  }
  const isAsync = ts.canHaveModifiers(fn) && (ts.getModifiers(fn) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.AsyncKeyword);
  return type && isAsync ? (checker.getAwaitedType(type) ?? type) : type;
}

/** The types an object literal is meant to be: its contextual type, its variable's declared type, the return type of the function returning it. */
function typesOfLiteral(checker: ts.TypeChecker, literal: ts.ObjectLiteralExpression): ts.Type[] {
  const types: ts.Type[] = [];
  const contextual = checker.getContextualType(literal);
  if (contextual) types.push(contextual);
  let outer: ts.Node = literal;
  while (ts.isParenthesizedExpression(outer.parent) || ts.isAsExpression(outer.parent) || ts.isSatisfiesExpression(outer.parent) || ts.isNonNullExpression(outer.parent) || ts.isTypeAssertionExpression(outer.parent)) {
    outer = outer.parent;
  }
  const parent = outer.parent;
  if (ts.isReturnStatement(parent) || (ts.isArrowFunction(parent) && parent.body === outer)) {
    const fn = ts.findAncestor(parent, ts.isFunctionLike);
    const type = fn && declaredReturnType(checker, fn);
    if (type) types.push(type);
  } else if (ts.isVariableDeclaration(parent) && parent.initializer === outer) {
    if (parent.type) types.push(checker.getTypeFromTypeNode(parent.type));
    else if (ts.isIdentifier(parent.name)) {
      // `const x = { ... }; return x;`: the type of the function that returns it.
      const variable = checker.getSymbolAtLocation(parent.name);
      const fn = ts.findAncestor(parent.parent, ts.isFunctionLike);
      let returned = false;
      const visit = (node: ts.Node): void => {
        if (returned || (ts.isFunctionLike(node) && node !== fn)) return;
        if (ts.isReturnStatement(node) && node.expression) {
          const value = unwrap(node.expression);
          if (ts.isIdentifier(value) && variable !== undefined && checker.getSymbolAtLocation(value) === variable) returned = true;
        }
        ts.forEachChild(node, visit);
      };
      if (fn && "body" in fn && fn.body) visit(fn.body);
      const type = returned && fn ? declaredReturnType(checker, fn) : undefined;
      if (type) types.push(type);
    }
  }
  return types;
}

/**
 * Every object literal of the project's own files implementing an interface or type alias the
 * project declares, as (type's symbol, member name) -> the literals' functions, in source order.
 */
function indexImplementations(program: ts.Program, checker: ts.TypeChecker): Implementations {
  const index: Implementations = new Map();
  const record = (literal: ts.ObjectLiteralExpression): void => {
    const types = typesOfLiteral(checker, literal).flatMap((type) => {
      const defined = checker.getNonNullableType(type);
      return defined.isUnion() ? defined.types : [defined];
    });
    if (types.length === 0) return;
    for (const member of literal.properties) {
      const key = member.name ? propertyKey(member.name) : undefined;
      if (key === undefined) continue;
      const fn = memberFunction(checker, member);
      if (!fn) continue;
      for (const type of types) {
        for (const signature of checker.getPropertyOfType(type, key)?.declarations ?? []) {
          const owner = ownerOf(checker, signature);
          if (!owner) continue;
          let implemented = index.get(owner.symbol);
          if (!implemented) index.set(owner.symbol, (implemented = { name: owner.name, members: new Map() }));
          const list = implemented.members.get(owner.key) ?? [];
          if (!list.includes(fn)) implemented.members.set(owner.key, [...list, fn]);
        }
      }
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) record(node);
    ts.forEachChild(node, visit);
  };
  for (const source of program.getSourceFiles()) if (isProjectFile(source)) visit(source);
  const inSourceOrder = (a: ts.Node, b: ts.Node): number => {
    const [fileA, fileB] = [relative(ROOT, a.getSourceFile().fileName), relative(ROOT, b.getSourceFile().fileName)];
    return fileA < fileB ? -1 : fileA > fileB ? 1 : a.getStart() - b.getStart();
  };
  for (const implemented of index.values()) for (const list of implemented.members.values()) list.sort(inSourceOrder);
  return index;
}

function walk(checker: ts.TypeChecker, implementations: Implementations, start: ts.FunctionLikeDeclaration, startTracked: ts.Identifier[], maxStops: number) {
  const entered: Entered[] = [];
  const visited = new Set<string>();
  let truncated = false;
  const symbolOf = (id: ts.Identifier): ts.Symbol | undefined =>
    ts.isShorthandPropertyAssignment(id.parent) && id.parent.name === id ? checker.getShorthandAssignmentValueSymbol(id.parent) : checker.getSymbolAtLocation(id);

  const mentions = (node: ts.Node, tracked: Set<ts.Symbol>): boolean => {
    if (ts.isIdentifier(node)) {
      const symbol = symbolOf(node);
      return symbol !== undefined && tracked.has(symbol);
    }
    // `x.tracked` names a property, not the variable: only the object side can mention it.
    if (ts.isPropertyAccessExpression(node)) return mentions(node.expression, tracked);
    return ts.forEachChild(node, (child) => mentions(child, tracked) || undefined) ?? false;
  };

  /** The function a call enters, or, for a member of an interface or object type without a body, the object literals' functions implementing it. */
  const calleesOf = (call: ts.CallExpression | ts.NewExpression): Callee[] => {
    const declaration = checker.getResolvedSignature(call)?.declaration;
    if (declaration && !ts.isJSDocSignature(declaration) && isProjectFunction(declaration)) return [{ fn: declaration, via: undefined }];
    const target = ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression;
    let symbol = checker.getSymbolAtLocation(target);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    for (const candidate of symbol?.declarations ?? []) {
      const fn = functionOf(candidate);
      if (fn) return [{ fn, via: undefined }];
    }
    // `rail.balance(...)`, or `balance(...)` after `const { balance } = rail` (or a parameter so destructured).
    const members = (symbol?.declarations ?? []).flatMap((candidate): ts.Declaration[] => {
      if (!ts.isBindingElement(candidate) || !ts.isObjectBindingPattern(candidate.parent)) return [candidate];
      const key = propertyKey(candidate.propertyName ?? candidate.name);
      const property = key === undefined ? undefined : checker.getPropertyOfType(checker.getNonNullableType(checker.getTypeAtLocation(candidate.parent)), key);
      return property?.declarations ?? [];
    });
    const dispatched: Callee[] = [];
    for (const candidate of members) {
      const owner = ownerOf(checker, candidate);
      const implemented = owner && implementations.get(owner.symbol);
      for (const fn of (owner && implemented?.members.get(owner.key)) ?? []) {
        if (!dispatched.some((callee) => callee.fn === fn)) dispatched.push({ fn, via: implemented?.name });
      }
    }
    return dispatched;
  };

  /** The identifiers in `fn`'s parameters that the call's tracked arguments arrive in, by parameter index. */
  const arrivals = (call: ts.CallExpression | ts.NewExpression, fn: ts.FunctionLikeDeclaration, tracked: Set<ts.Symbol>): Map<number, ts.Identifier[]> => {
    const found = new Map<number, ts.Identifier[]>();
    const rest = fn.parameters.findIndex((parameter) => parameter.dotDotDotToken !== undefined);
    (call.arguments ?? []).forEach((argument, position) => {
      if (!mentions(argument, tracked)) return;
      const own = rest >= 0 && position >= rest ? rest : position;
      // A spread argument may fill any parameter from its position on; a plain one fills its own (or the rest parameter).
      const indexes = ts.isSpreadElement(argument) ? fn.parameters.map((_, index) => index).filter((index) => index >= own) : [own];
      const value = unwrap(argument);
      for (const index of indexes) {
        const parameter = fn.parameters[index];
        if (!parameter) continue;
        let names = boundIdentifiers(parameter.name);
        // `f({ a: tracked, b: other })` into `f({ a, b })`: only `a` arrives tracked.
        if (ts.isObjectBindingPattern(parameter.name) && ts.isObjectLiteralExpression(value) && !value.properties.some((p) => ts.isSpreadAssignment(p) && mentions(p, tracked))) {
          const keys = new Set(value.properties.filter((p) => mentions(p, tracked)).map((p) => (p.name ? propertyKey(p.name) : undefined)));
          names = parameter.name.elements.filter((element) => keys.has(propertyKey(element.propertyName ?? element.name))).flatMap((element) => boundIdentifiers(element.name));
        }
        if (names.length > 0) found.set(index, [...(found.get(index) ?? []), ...names]);
      }
    });
    return found;
  };

  const enter = (fn: ts.FunctionLikeDeclaration, arriving: Map<number, ts.Identifier[]>, via?: string, captured?: ReadonlySet<ts.Symbol>): void => {
    const key = `${fn.getSourceFile().fileName}:${fn.pos}:${[...arriving.keys()].sort().join(",")}${captured ? ":captured" : ""}`;
    if (visited.has(key) || !fn.body) return;
    if (entered.length >= maxStops) {
      truncated = true;
      return;
    }
    visited.add(key);
    entered.push({ file: relative(ROOT, fn.getSourceFile().fileName), name: nameOf(fn), via });
    // A closure defined inside a function being walked sees what that function tracks.
    const tracked = new Set<ts.Symbol>(captured);
    const track = (ids: ts.Identifier[]): void => {
      for (const id of ids) {
        const symbol = symbolOf(id);
        if (symbol) tracked.add(symbol);
      }
    };
    for (const ids of arriving.values()) track(ids);

    const visit = (node: ts.Node): void => {
      // A function defined here runs only when called: its body is walked when a call enters it.
      // One run in place (a callback handed to a call, an immediately invoked one) is walked now.
      if (node !== fn.body && ts.isFunctionLike(node) && !runsInPlace(node)) return;
      ts.forEachChild(node, visit);
      if (ts.isVariableDeclaration(node) && node.initializer && mentions(node.initializer, tracked)) track(boundIdentifiers(node.name));
      if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment && mentions(node.right, tracked)) {
        track(boundIdentifiers(node.left));
      }
      if ((ts.isForOfStatement(node) || ts.isForInStatement(node)) && ts.isVariableDeclarationList(node.initializer) && mentions(node.expression, tracked)) {
        track(node.initializer.declarations.flatMap((declaration) => boundIdentifiers(declaration.name)));
      }
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        const passes = (node.arguments ?? []).some((argument) => mentions(argument, tracked));
        for (const callee of calleesOf(node)) {
          // A closure of this function: entered with what it captures, if it reads any of it.
          if (isInside(callee.fn, fn) && callee.fn.body && (passes || mentions(callee.fn.body, tracked))) {
            enter(callee.fn, arrivals(node, callee.fn, tracked), callee.via, tracked);
            continue;
          }
          if (!passes) continue;
          const next = arrivals(node, callee.fn, tracked);
          if (next.size > 0) enter(callee.fn, next, callee.via);
        }
      }
    };
    // The body is visited after the parameters' defaults, which may read the tracked ones too.
    for (const parameter of fn.parameters) if (parameter.initializer) visit(parameter.initializer);
    visit(fn.body);
  };

  const first = new Map<number, ts.Identifier[]>();
  start.parameters.forEach((parameter, index) => {
    const ids = boundIdentifiers(parameter.name).filter((id) => startTracked.includes(id));
    if (ids.length > 0) first.set(index, ids);
  });
  enter(start, first);
  return { entered, truncated };
}

/** Whether a function runs where it is written: a callback handed to a call, or one invoked at once. */
function runsInPlace(node: ts.SignatureDeclaration): boolean {
  let child: ts.Node = node;
  let parent = node.parent;
  while (parent && ts.isParenthesizedExpression(parent)) {
    child = parent;
    parent = parent.parent;
  }
  if (!parent) return false;
  if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && (parent.arguments ?? []).some((argument) => argument === child)) return true;
  return ts.isCallExpression(parent) && parent.expression === child;
}

/** Whether `inner` is written inside `outer`. */
function isInside(inner: ts.Node, outer: ts.Node): boolean {
  for (let node = inner.parent; node; node = node.parent) if (node === outer) return true;
  return false;
}

function findEntry(program: ts.Program, file: string, fnName: string, param: string): { fn: ts.FunctionLikeDeclaration; ids: ts.Identifier[] } {
  const source = program.getSourceFile(resolve(ROOT, file));
  if (!source) fail(`no such file in the project: ${file}`);
  let fn: ts.FunctionLikeDeclaration | undefined;
  const visit = (node: ts.Node): void => {
    if (fn) return;
    if ((ts.isFunctionDeclaration(node) || ts.isVariableDeclaration(node) || ts.isMethodDeclaration(node)) && node.name !== undefined && propertyKey(node.name) === fnName) fn = functionOf(node);
    if (!fn) ts.forEachChild(node, visit);
  };
  visit(source);
  if (!fn) fail(`no function ${fnName} in ${file}`);
  const byName = fn.parameters.flatMap((parameter) => boundIdentifiers(parameter.name)).filter((id) => id.text === param);
  if (byName.length === 0) fail(`function ${fnName} in ${file} has no parameter ${param}`);
  return { fn, ids: byName };
}

/** Files of the functions entered, consecutive repeats collapsed. */
function staysOf(entered: Entered[]): Stay[] {
  const stays: Stay[] = [];
  for (const { file, name, via } of entered) {
    let current = stays.at(-1);
    if (current?.file === file) {
      if (!current.functions.includes(name)) current.functions.push(name);
    } else stays.push((current = { file, functions: [name] }));
    // A stay entered through an interface or object type says which.
    if (via !== undefined && !current.via?.includes(via)) current.via = [...(current.via ?? []), via];
  }
  return stays;
}

const options = parseArguments(process.argv.slice(2));
const program = loadProgram();
// The checker binds every file, which also sets the parent links the walk reads.
const checker = program.getTypeChecker();
const { fn, ids } = findEntry(program, options.file, options.fn, options.param);
const implementations = indexImplementations(program, checker);
const { entered, truncated } = walk(checker, implementations, fn, ids, options.stops);
const route = staysOf(entered);
const visits: Record<string, number> = {};
let returns = 0;
for (const stay of route) {
  if (visits[stay.file] !== undefined) returns++;
  visits[stay.file] = (visits[stay.file] ?? 0) + 1;
}
const entry = `${options.file}:${options.fn}:${options.param}`;
const summary = { entry, stays: route.length, rooms: Object.keys(visits).length, returns, visits, route };

if (options.json) {
  console.log(JSON.stringify(summary));
} else {
  console.log(entry);
  console.log(`stays ${summary.stays}, rooms ${summary.rooms}, returns ${returns}; ${entered.length} functions entered${truncated ? ` (stopped at --stops ${options.stops})` : ""}`);
  console.log("visits:");
  for (const [file, count] of Object.entries(visits).sort((a, b) => b[1] - a[1])) console.log(`  ${String(count).padStart(3)}  ${file}`);
  console.log("route:");
  route.forEach((stay, index) => console.log(`  ${index + 1}. ${stay.file}  (${stay.functions.join(", ")})${stay.via ? `  (via ${stay.via.join(", ")})` : ""}`));
}
