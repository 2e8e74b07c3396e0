/**
 * Makes the promise of every `async` function the program declares observable by the sandbox's
 * unhandled-rejection tracking (see ../unhandled.ts). QuickJS creates an async function's promise
 * from the intrinsic `Promise`, which no script can replace, and the wasm build has no rejection
 * tracker: `(async () => { throw e })()` left un-awaited was silently lost. So the checked program is
 * emitted with each async function's body moved into an inner async arrow whose promise is handed to
 * the prelude's `__toolwrightTrack` (a tracked promise settled like it):
 *
 *     async function f(a) { body }  →  function f(a) { return __toolwrightTrack((async () => { body })()); }
 *
 * An arrow keeps `this`, `arguments`, `super` and `new.target` of the function it sits in, so the
 * function behaves the same; only what it returns is now a tracked promise. Async generators are left
 * alone (they return no promise). Done on the TypeScript AST at emit, so it costs nothing extra and
 * cannot be fooled by text that merely looks like `async`.
 */
import type ts from "typescript";
import { loadTypeScript } from "./service.js";

/** The prelude's global that turns a promise into a tracked one. */
export const TRACK_GLOBAL = "__toolwrightTrack";

/** The emit transformer (a `before` transformer of `program.emit`). */
export function trackAsyncTransformer(context: ts.TransformationContext): ts.Transformer<ts.SourceFile> {
  const ts = loadTypeScript();
  const f = context.factory;
  const isAsync = (node: ts.Node): boolean =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.AsyncKeyword);
  const withoutAsync = (modifiers: readonly ts.ModifierLike[] | undefined) =>
    modifiers?.filter((m) => m.kind !== ts.SyntaxKind.AsyncKeyword);
  /** `__toolwrightTrack((async () => body)())` */
  const tracked = (body: ts.ConciseBody): ts.Expression =>
    f.createCallExpression(f.createIdentifier(TRACK_GLOBAL), undefined, [
      f.createCallExpression(
        f.createParenthesizedExpression(
          f.createArrowFunction([f.createModifier(ts.SyntaxKind.AsyncKeyword)], undefined, [], undefined, undefined, body),
        ),
        undefined,
        [],
      ),
    ]);
  const block = (body: ts.ConciseBody): ts.Block => f.createBlock([f.createReturnStatement(tracked(body))], true);
  const visit = (node: ts.Node): ts.Node => {
    const visited = ts.visitEachChild(node, visit, context);
    if (!isAsync(visited)) return visited;
    if (ts.isFunctionDeclaration(visited) && visited.body && !visited.asteriskToken)
      return f.updateFunctionDeclaration(
        visited,
        withoutAsync(visited.modifiers),
        undefined,
        visited.name,
        visited.typeParameters,
        visited.parameters,
        visited.type,
        block(visited.body),
      );
    if (ts.isFunctionExpression(visited) && !visited.asteriskToken)
      return f.updateFunctionExpression(
        visited,
        withoutAsync(visited.modifiers) as ts.Modifier[] | undefined,
        undefined,
        visited.name,
        visited.typeParameters,
        visited.parameters,
        visited.type,
        block(visited.body),
      );
    if (ts.isArrowFunction(visited))
      return f.updateArrowFunction(
        visited,
        withoutAsync(visited.modifiers) as ts.Modifier[] | undefined,
        visited.typeParameters,
        visited.parameters,
        visited.type,
        visited.equalsGreaterThanToken,
        tracked(visited.body),
      );
    if (ts.isMethodDeclaration(visited) && visited.body && !visited.asteriskToken)
      return f.updateMethodDeclaration(
        visited,
        withoutAsync(visited.modifiers),
        undefined,
        visited.name,
        visited.questionToken,
        visited.typeParameters,
        visited.parameters,
        visited.type,
        block(visited.body),
      );
    return visited;
  };
  return (file) => {
    // The wrapper itself (`async function __toolwrightProgram`) stays native: the executor awaits it.
    const [wrapper] = file.statements;
    if (wrapper === undefined || !ts.isFunctionDeclaration(wrapper) || wrapper.body === undefined) return file;
    const body = ts.visitEachChild(wrapper.body, visit, context);
    return f.updateSourceFile(file, [
      f.updateFunctionDeclaration(
        wrapper,
        wrapper.modifiers,
        wrapper.asteriskToken,
        wrapper.name,
        wrapper.typeParameters,
        wrapper.parameters,
        wrapper.type,
        body,
      ),
      ...file.statements.slice(1),
    ]);
  };
}
