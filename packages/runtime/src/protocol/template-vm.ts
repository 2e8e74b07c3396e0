/**
 * A tiny linear-time matcher for the patterns URI templates compile to (a Pike VM, as in RE2):
 * literal characters, "any character but these" loops (greedy or lazy), optional groups and
 * capture slots. It gives exactly the captures a backtracking JS `RegExp` would (the first match
 * in priority order, an optional group that matched nothing counting as skipped) but runs every
 * alternative in lockstep, so a URI of n characters costs at most O(n × program size) steps
 * whatever the template. A `RegExp` built from a template with two adjacent unbounded groups
 * (`{+a}/{+b}`) is quadratic, which let one request stall a server.
 */

/** One instruction of a compiled pattern. */
export type Inst =
  /** The next character must be `char`. */
  | { readonly op: "char"; readonly char: string }
  /** The next character must not be in `stop`. */
  | { readonly op: "class"; readonly stop: ReadonlySet<string> }
  /** Try `first`, then `second` (lower priority). */
  | { readonly op: "split"; readonly first: number; readonly second: number }
  | { readonly op: "jump"; readonly to: number }
  /** Record the current position in capture slot `slot`. */
  | { readonly op: "save"; readonly slot: number }
  /** Starts an optional group: nothing consumed in it yet. */
  | { readonly op: "open" }
  /** Ends an optional group: this path fails when the group consumed nothing (as a `RegExp` does). */
  | { readonly op: "nonempty" }
  /** Success, when the whole input was read (patterns are anchored at both ends). */
  | { readonly op: "match" };

/** A compiled pattern: its instructions and how many capture slots they write. */
export interface Program {
  readonly insts: readonly Inst[];
  readonly slots: number;
}

/** The captures of the match (slot → position, -1 when not set) and the steps it took. */
export interface VmResult {
  readonly captures: readonly number[] | undefined;
  readonly steps: number;
}

/** The threads of one input position, in priority order: state (pc × 2 + consumed-in-group bit) and captures. */
interface ThreadList {
  states: number[];
  caps: (readonly number[])[];
}

/**
 * Runs `program` over the whole of `input`. Each input position visits every state (instruction,
 * and whether the open group consumed anything) at most once: a thread reaching a state a thread
 * of higher priority already reached at this position is dropped, since its future would be the
 * same and it would lose. Hence at most 2 × 2 × program size steps per character.
 */
export function runProgram(program: Program, input: string): VmResult {
  const { insts } = program;
  // The position each state was last added at: the dedup mark of the current step.
  const mark = new Int32Array(insts.length * 2).fill(-1);
  let steps = 0;
  const stackStates: number[] = [];
  const stackCaps: (readonly number[])[] = [];

  /** Follows jumps, splits, saves and group marks from `state` in priority order; appends the threads that wait for input. */
  function add(list: ThreadList, state: number, caps: readonly number[], pos: number): void {
    stackStates.push(state);
    stackCaps.push(caps);
    while (stackStates.length > 0) {
      const s = stackStates.pop() as number;
      const c = stackCaps.pop() as readonly number[];
      if (mark[s] === pos) continue;
      mark[s] = pos;
      steps++;
      const pc = s >> 1;
      const moved = s & 1;
      const inst = insts[pc] as Inst;
      switch (inst.op) {
        case "jump":
          stackStates.push((inst.to << 1) | moved);
          stackCaps.push(c);
          break;
        case "split":
          // `second` pushed first so `first` is explored first: priority order is list order.
          stackStates.push((inst.second << 1) | moved, (inst.first << 1) | moved);
          stackCaps.push(c, c);
          break;
        case "save": {
          const copy = c.slice();
          copy[inst.slot] = pos;
          stackStates.push(((pc + 1) << 1) | moved);
          stackCaps.push(copy);
          break;
        }
        case "open":
          stackStates.push((pc + 1) << 1);
          stackCaps.push(c);
          break;
        case "nonempty":
          if (moved) {
            stackStates.push(((pc + 1) << 1) | moved);
            stackCaps.push(c);
          }
          break;
        default:
          list.states.push(s);
          list.caps.push(c);
      }
    }
  }

  let current: ThreadList = { states: [], caps: [] };
  add(current, 0, new Array<number>(program.slots).fill(-1), 0);
  for (let pos = 0; pos < input.length && current.states.length > 0; pos++) {
    const ch = input[pos] as string;
    const next: ThreadList = { states: [], caps: [] };
    for (let i = 0; i < current.states.length; i++) {
      steps++;
      const s = current.states[i] as number;
      const inst = insts[s >> 1] as Inst;
      if ((inst.op === "char" && inst.char === ch) || (inst.op === "class" && !inst.stop.has(ch)))
        add(next, (((s >> 1) + 1) << 1) | 1, current.caps[i] as readonly number[], pos + 1);
    }
    current = next;
  }
  // At the end, the first thread in priority order that matches is the one a backtracking engine finds first.
  const winner = current.states.findIndex((s) => insts[s >> 1]?.op === "match");
  return { captures: winner < 0 ? undefined : current.caps[winner], steps };
}
