/**
 * Wall time inside single operators (issue 27, item 7). QuickJS asks the interrupt handler for the
 * deadline only every 10,000 polls (calls and backward jumps), and the wasm build cannot lower that.
 * The prelude's wrapped built-ins check the deadline themselves (see ../deadline.ts), but operators
 * cannot be wrapped: a loop doing `a === b` or `s + t` on strings of tens of MB, 10,000 times between
 * two polls, ran minutes past the deadline. So a checked program is emitted with a deadline check,
 * `__toolwrightTick()`, first in every loop body and every function body (array callbacks are
 * functions): past the deadline it spins into the next poll, where the handler stops the program
 * with its uncatchable interrupt. The overrun is then one loop iteration or one call, i.e. one
 * operator. Cost: a call and a clock read per iteration (measured in `bench/` as the warm program);
 * JavaScript run without the check keeps only the interrupt counter.
 */
import type ts from "typescript";
import { loadTypeScript } from "./service.js";

/** The prelude's global deadline check. */
export const TICK_GLOBAL = "__toolwrightTick";

/** The emit transformer (a `before` transformer of `program.emit`). */
export function deadlineTicksTransformer(context: ts.TransformationContext): ts.Transformer<ts.SourceFile> {
  const ts = loadTypeScript();
  const f = context.factory;
  const tick = () => f.createExpressionStatement(f.createCallExpression(f.createIdentifier(TICK_GLOBAL), undefined, []));
  const ticked = (statement: ts.Statement): ts.Statement => f.createBlock([tick(), statement], true);
  const tickedBody = (body: ts.Block): ts.Block => f.updateBlock(body, [tick(), ...body.statements]);
  const visit = (node: ts.Node): ts.Node => {
    const n = ts.visitEachChild(node, visit, context);
    if (ts.isForStatement(n)) return f.updateForStatement(n, n.initializer, n.condition, n.incrementor, ticked(n.statement));
    if (ts.isForOfStatement(n)) return f.updateForOfStatement(n, n.awaitModifier, n.initializer, n.expression, ticked(n.statement));
    if (ts.isForInStatement(n)) return f.updateForInStatement(n, n.initializer, n.expression, ticked(n.statement));
    if (ts.isWhileStatement(n)) return f.updateWhileStatement(n, n.expression, ticked(n.statement));
    if (ts.isDoStatement(n)) return f.updateDoStatement(n, ticked(n.statement), n.expression);
    if (ts.isFunctionDeclaration(n) && n.body)
      return f.updateFunctionDeclaration(
        n,
        n.modifiers,
        n.asteriskToken,
        n.name,
        n.typeParameters,
        n.parameters,
        n.type,
        tickedBody(n.body),
      );
    if (ts.isFunctionExpression(n))
      return f.updateFunctionExpression(
        n,
        n.modifiers,
        n.asteriskToken,
        n.name,
        n.typeParameters,
        n.parameters,
        n.type,
        tickedBody(n.body),
      );
    if (ts.isMethodDeclaration(n) && n.body)
      return f.updateMethodDeclaration(
        n,
        n.modifiers,
        n.asteriskToken,
        n.name,
        n.questionToken,
        n.typeParameters,
        n.parameters,
        n.type,
        tickedBody(n.body),
      );
    if (ts.isArrowFunction(n)) {
      const body = ts.isBlock(n.body) ? tickedBody(n.body) : f.createBlock([tick(), f.createReturnStatement(n.body)], true);
      return f.updateArrowFunction(n, n.modifiers, n.typeParameters, n.parameters, n.type, n.equalsGreaterThanToken, body);
    }
    return n;
  };
  return (file) => ts.visitEachChild(file, visit, context);
}
