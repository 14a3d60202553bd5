/**
 * Label and field selectors as the API server reads them: the label selector language of
 * a `labelSelector` query (`app=web,tier in (a,b),!legacy,rank>2`, parsed token for token
 * as apimachinery's `labels.Parse` does, with its messages), metav1.LabelSelector objects
 * (`matchLabels`, `matchExpressions`), field selectors (`metadata.name=a,spec.nodeName!=b`,
 * with their escapes) and node selector terms. One home for every side that selects: the
 * sim's lists, watches, admission and scheduler, the relay's shared caches and narrowing,
 * the controllers' schedulers. Pure.
 */
import { isQualifiedName, isValidLabelValue } from "./names.ts";

/** A selector that does not parse, with the API server's message (the sim answers it with a 400). */
export class SelectorError extends Error {}

// ---- requirements ----------------------------------------------------------------------

/** The operators of LabelSelector and NodeSelector requirements. */
export type SelectorOperator = "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt";

/** A requirement's operator: those of the objects, and the exact-match ones of the string language. */
export type LabelOperator = SelectorOperator | "=" | "==" | "!=";

/** One term of a label selector: all of a selector's terms must hold. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** An int64 as Go's `strconv.ParseInt(s, 10, 64)` reads it, or undefined. */
function int64(text: string | undefined): bigint | undefined {
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value >= -(2n ** 63n) && value < 2n ** 63n ? value : undefined;
}

/**
 * Whether a requirement holds for `value` (undefined: the label is absent), as
 * `labels.Requirement.Matches` decides: `In`/`=`/`==` need the label with one of the
 * values, `NotIn`/`!=` hold for an absent label too, `Gt`/`Lt` compare base-10 int64s and
 * hold for nothing else. An unknown operator holds for nothing.
 */
export function requirementHolds(operator: string, values: readonly string[], value: string | undefined): boolean {
  switch (operator) {
    case "In":
    case "=":
    case "==":
      return value !== undefined && values.includes(value);
    case "NotIn":
    case "!=":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      const left = int64(value);
      const right = values.length === 1 ? int64(values[0]) : undefined;
      if (left === undefined || right === undefined) return false;
      return operator === "Gt" ? left > right : left < right;
    }
    default:
      return false;
  }
}

/** Whether `labels` meet every requirement (none: everything matches). */
export function matchesLabelRequirements(labels: Readonly<Record<string, string>> | undefined, requirements: readonly LabelRequirement[]): boolean {
  const have = labels ?? {};
  return requirements.every((r) => requirementHolds(r.operator, r.values, Object.hasOwn(have, r.key) ? have[r.key] : undefined));
}

// ---- the label selector language ------------------------------------------------------

/** The lexer's tokens: the literal ones by their text, `id` for identifiers, `end` at the end. */
type Token = "id" | "end" | ")" | "," | "!" | "==" | "=" | ">" | "in" | "<" | "!=" | "notin" | "(";

interface Scanned {
  readonly token: Token;
  readonly literal: string;
}

const LITERALS: ReadonlyMap<string, Token> = new Map<string, Token>([")", ",", "!", "==", "=", ">", "in", "<", "!=", "notin", "("].map((t) => [t, t as Token]));
const SPECIAL = "=!(),><";
const WHITESPACE = " \t\r\n";

/** Upstream's lexer: white space separates, runs of `=!(),><` are the longest literal they start with, anything else is an identifier or keyword. */
function lex(text: string): Scanned[] {
  const items: Scanned[] = [];
  let pos = 0;
  for (;;) {
    while (pos < text.length && WHITESPACE.includes(text[pos] ?? "")) pos += 1;
    if (pos >= text.length) break;
    const start = pos;
    if (SPECIAL.includes(text[pos] ?? "")) {
      let last: Scanned | undefined;
      while (pos < text.length && SPECIAL.includes(text[pos] ?? "")) {
        const token = LITERALS.get(text.slice(start, pos + 1));
        if (token !== undefined) last = { token, literal: text.slice(start, pos + 1) };
        else if (last !== undefined) break;
        pos += 1;
      }
      // Each special character alone is a literal, so `last` is always set here.
      if (last) {
        items.push(last);
        pos = start + last.literal.length;
      }
    } else {
      while (pos < text.length && !SPECIAL.includes(text[pos] ?? "") && !WHITESPACE.includes(text[pos] ?? "")) pos += 1;
      const word = text.slice(start, pos);
      items.push({ token: LITERALS.get(word) ?? "id", literal: word });
    }
  }
  items.push({ token: "end", literal: "" });
  return items;
}

/** `field.Invalid(path, value, detail)` as its message reads. */
function invalid(path: string, value: string, detail: string): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;
}

/** An aggregate of messages as `utilerrors.NewAggregate` words it: one alone, several in brackets, repeats dropped. */
function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? "") : `[${unique.join(", ")}]`;
}

/** The checks of `labels.NewRequirement` on a parsed term; the message, or undefined when it is valid. */
function requirementErrors(key: string, operator: LabelOperator, values: readonly string[]): string | undefined {
  const errors: string[] = [];
  if (operator === "Gt" || operator === "Lt") {
    values.forEach((value, i) => {
      if (int64(value) === undefined) errors.push(invalid(`values[${i}]`, value, "for 'Gt', 'Lt' operators, the value must be an integer"));
    });
  }
  values.forEach((value, i) => {
    const problems = isValidLabelValue(value);
    if (problems.length > 0) errors.push(invalid(`values[${i}][${key}]`, value, problems.join("; ")));
  });
  return errors.length > 0 ? aggregate(errors) : undefined;
}

/** The operator tokens of a binary requirement. */
const BINARY: ReadonlyMap<Token, LabelOperator> = new Map<Token, LabelOperator>([
  ["in", "In"],
  ["notin", "NotIn"],
  ["=", "="],
  ["==", "=="],
  ["!=", "!="],
  [">", "Gt"],
  ["<", "Lt"],
]);

/** Upstream's recursive-descent parser over the scanned tokens; every refusal is a SelectorError. */
class Parser {
  readonly #items: readonly Scanned[];
  #position = 0;

  constructor(text: string) {
    this.#items = lex(text);
  }

  /** The current token; in a value's place `in` and `notin` are identifiers. */
  #peek(values: boolean): Scanned {
    const item = this.#items[this.#position] ?? { token: "end", literal: "" };
    return values && (item.token === "in" || item.token === "notin") ? { token: "id", literal: item.literal } : item;
  }

  #next(values: boolean): Scanned {
    const item = this.#peek(values);
    this.#position = Math.min(this.#position + 1, this.#items.length - 1);
    return item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { token, literal } = this.#peek(true);
      if (token === "end") return requirements;
      if (token !== "id" && token !== "!") throw new SelectorError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      requirements.push(this.#requirement());
      const after = this.#next(true);
      if (after.token === "end") return requirements;
      if (after.token !== ",") throw new SelectorError(`found '${after.literal}', expected: ',' or 'end of string'`);
      const following = this.#peek(true);
      if (following.token !== "id" && following.token !== "!") throw new SelectorError(`found '${following.literal}', expected: identifier after ','`);
    }
  }

  #requirement(): LabelRequirement {
    try {
      const { key, unary } = this.#keyAndUnaryOperator();
      if (unary) return { key, operator: unary, values: [] };
      const operator = this.#operator();
      const values = [...(operator === "In" || operator === "NotIn" ? this.#valueSet() : this.#exactValue())].sort();
      const problem = requirementErrors(key, operator, values);
      if (problem !== undefined) throw new SelectorError(problem);
      return { key, operator, values };
    } catch (error) {
      if (error instanceof SelectorError) throw new SelectorError(`unable to parse requirement: ${error.message}`);
      throw error;
    }
  }

  /** `[!]key`, and `Exists`/`DoesNotExist` when no binary operator follows. */
  #keyAndUnaryOperator(): { key: string; unary: "Exists" | "DoesNotExist" | undefined } {
    let item = this.#next(true);
    const negated = item.token === "!";
    if (negated) item = this.#next(true);
    if (item.token !== "id") throw new SelectorError(`found '${item.literal}', expected: identifier`);
    const problems = isQualifiedName(item.literal);
    if (problems.length > 0) throw new SelectorError(invalid("<nil>", item.literal, problems.join("; ")));
    const following = this.#peek(true).token;
    if (negated) return { key: item.literal, unary: "DoesNotExist" };
    return { key: item.literal, unary: following === "end" || following === "," ? "Exists" : undefined };
  }

  #operator(): LabelOperator {
    const { token, literal } = this.#next(false);
    const operator = BINARY.get(token);
    if (operator === undefined) throw new SelectorError(`found '${literal}', expected: in, notin, =, ==, !=, gt, lt`);
    return operator;
  }

  /** `(a,b,...)`; empty entries are the empty value. */
  #valueSet(): Set<string> {
    const open = this.#next(true);
    if (open.token !== "(") throw new SelectorError(`found '${open.literal}' expected: '('`);
    const { token, literal } = this.#peek(true);
    if (token === ")") {
      this.#next(true);
      return new Set([""]);
    }
    if (token !== "id" && token !== ",") throw new SelectorError(`found '${literal}', expected: ',', ')' or identifier`);
    const values = this.#identifiers();
    // Upstream names the token before the list here, not the one found.
    if (this.#next(true).token !== ")") throw new SelectorError(`found '${literal}', expected: ')'`);
    return values;
  }

  #identifiers(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { token, literal } = this.#next(true);
      if (token === "id") {
        values.add(literal);
        const following = this.#peek(true);
        if (following.token === ")") return values;
        if (following.token !== ",") throw new SelectorError(`found '${following.literal}', expected: ',' or ')'`);
      } else if (token === ",") {
        if (values.size === 0) values.add("");
        const following = this.#peek(true).token;
        if (following === ")") {
          values.add("");
          return values;
        }
        if (following === ",") {
          this.#next(true);
          values.add("");
        }
      } else {
        throw new SelectorError(`found '${literal}', expected: ',', or identifier`);
      }
    }
  }

  /** The one value of `=`, `==`, `!=`, `>` or `<`; none is the empty value. */
  #exactValue(): Set<string> {
    const { token } = this.#peek(true);
    if (token === "end" || token === ",") return new Set([""]);
    const item = this.#next(true);
    if (item.token !== "id") throw new SelectorError(`found '${item.literal}', expected: identifier`);
    return new Set([item.literal]);
  }
}

/** Orders requirements by key, as upstream sorts a parsed or built selector. */
function byKey(requirements: LabelRequirement[]): LabelRequirement[] {
  return requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Parses a label selector string as `labels.Parse` does (empty or absent: no
 * requirement, everything matches); a SelectorError with the API server's message when it
 * does not parse. Requirements come sorted by key, values sorted and without repeats.
 */
export function parseLabelSelector(selector: string | undefined): LabelRequirement[] {
  if (!selector) return [];
  return byKey(new Parser(selector).parse());
}

/** A requirement as `Requirement.String` writes it (`a=b`, `!a`, `a in (x,y)`, `a>2`). */
function formatRequirement(r: LabelRequirement): string {
  const sorted = r.values.length === 1 ? r.values : [...r.values].sort();
  switch (r.operator) {
    case "Exists":
      return r.key;
    case "DoesNotExist":
      return `!${r.key}`;
    case "In":
      return `${r.key} in (${sorted.join(",")})`;
    case "NotIn":
      return `${r.key} notin (${sorted.join(",")})`;
    case "Gt":
      return `${r.key}>${sorted.join(",")}`;
    case "Lt":
      return `${r.key}<${sorted.join(",")}`;
    default:
      return `${r.key}${r.operator}${sorted.join(",")}`;
  }
}

/** Requirements as the selector string `Selector.String` writes (what a Scale's `status.selector` carries). */
export function formatLabelRequirements(requirements: readonly LabelRequirement[]): string {
  return requirements.map(formatRequirement).join(",");
}

// ---- metav1.LabelSelector --------------------------------------------------------------

/** A metav1.LabelSelector as webhooks, workloads and watches carry it; read-only, so any parsed form fits. */
export interface LabelSelectorObject {
  readonly matchLabels?: Readonly<Record<string, string>> | undefined;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] | undefined }[] | undefined;
}

const EXPRESSION_OPERATORS: readonly string[] = ["In", "NotIn", "Exists", "DoesNotExist"];

/**
 * A LabelSelector as requirements (`metav1.LabelSelectorAsSelector`): `matchLabels` as
 * `key=value`, then the expressions, sorted by key. Absent or empty selects everything (no
 * requirement); an operator other than In, NotIn, Exists and DoesNotExist is a
 * SelectorError.
 */
export function requirementsOfLabelSelector(selector: LabelSelectorObject | undefined): LabelRequirement[] {
  if (!selector) return [];
  const out: LabelRequirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, operator: "=", values: [value] }));
  for (const e of selector.matchExpressions ?? []) {
    if (!EXPRESSION_OPERATORS.includes(e.operator)) throw new SelectorError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    out.push({ key: e.key, operator: e.operator as SelectorOperator, values: e.values ?? [] });
  }
  return byKey(out);
}

/**
 * Whether `labels` match a LabelSelector: every matchLabels pair and every expression (an
 * empty selector matches all). An expression with an unknown operator matches nothing.
 */
export function matchesLabelSelector(labels: Readonly<Record<string, string>> | undefined, selector: LabelSelectorObject): boolean {
  const have = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (!Object.hasOwn(have, key) || have[key] !== value) return false;
  for (const e of selector.matchExpressions ?? []) {
    if (!EXPRESSION_OPERATORS.includes(e.operator)) return false;
    if (!requirementHolds(e.operator, e.values ?? [], Object.hasOwn(have, e.key) ? have[e.key] : undefined)) return false;
  }
  return true;
}

// ---- field selectors -------------------------------------------------------------------

/** One term of a field selector: `field=value`, `field==value` or `field!=value`. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: "=" | "==" | "!=";
  readonly value: string;
}

/** Splits on the commas no backslash escapes (upstream's `splitTerms`). */
function fieldTerms(selector: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i += 1) {
    const c = selector[i];
    if (escaped) escaped = false;
    else if (c === "\\") escaped = true;
    else if (c === ",") {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** The operators of a term, the longer first so that `==` leaves no `=` on the value. */
const FIELD_OPERATORS = ["!=", "==", "="] as const;

/** A term split at the first operator in it (no escape applies to the field). */
function splitFieldTerm(term: string): FieldRequirement | undefined {
  for (let i = 0; i < term.length; i += 1) {
    const operator = FIELD_OPERATORS.find((op) => term.startsWith(op, i));
    if (operator) return { field: term.slice(0, i), operator, value: term.slice(i + operator.length) };
  }
  return undefined;
}

/** A value with its `\\`, `\,` and `\=` escapes undone (upstream's `UnescapeValue`). */
function unescapeFieldValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = "";
  let escaped = false;
  for (const c of value) {
    if (escaped) {
      if (c !== "\\" && c !== "," && c !== "=") throw new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      escaped = false;
    } else if (c === "\\") escaped = true;
    else if (c === "," || c === "=") throw new SelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0) ?? 0}`);
    else out += c;
  }
  if (escaped) throw new SelectorError("invalid field selector: invalid escape sequence: \\");
  return out;
}

/**
 * Parses a field selector as `fields.ParseSelector` does (empty or absent: no
 * requirement), terms sorted. With `allowed`, only those fields (plus `metadata.name` and
 * `metadata.namespace`, which every kind serves) may be named, as the API server's field
 * label conversion refuses the others. A SelectorError with the API server's message.
 */
export function parseFieldSelector(selector: string | undefined, allowed?: readonly string[]): FieldRequirement[] {
  if (!selector) return [];
  const requirements = fieldTerms(selector)
    .sort()
    .filter((term) => term !== "")
    .map((term) => {
      const split = splitFieldTerm(term);
      if (!split) throw new SelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
      return { ...split, value: unescapeFieldValue(split.value) };
    });
  if (allowed) for (const { field } of requirements) checkFieldLabel(field, allowed);
  return requirements;
}

/** Refuses a field the kind does not serve, worded as kube-apiserver v1.36 words it. */
function checkFieldLabel(field: string, allowed: readonly string[]): void {
  if (field === "metadata.name" || field === "metadata.namespace" || allowed.includes(field)) return;
  const known = ["metadata.name", "metadata.namespace", ...[...allowed].sort()].map((f) => JSON.stringify(f)).join(", ");
  throw new SelectorError(`${JSON.stringify(field)} is not a known field selector: only ${known}`);
}

/** Boolean field labels: the API server formats them always, so an absent one reads `false`. */
const BOOLEAN_FIELDS: readonly string[] = ["spec.hostNetwork", "spec.unschedulable"];

/** The value of a dotted field of an object as a field selector sees it (`""` when absent; objects as JSON). */
export function fieldValue(object: unknown, field: string): string {
  let current: unknown = object;
  for (const part of field.split(".")) {
    if (current === null || typeof current !== "object") return "";
    current = (current as Record<string, unknown>)[part];
  }
  if (current === undefined || current === null) return BOOLEAN_FIELDS.includes(field) ? "false" : "";
  return typeof current === "object" ? JSON.stringify(current) : String(current);
}

/** Whether an object meets every field requirement (none: everything matches). */
export function matchesFieldRequirements(object: unknown, requirements: readonly FieldRequirement[]): boolean {
  return requirements.every((r) => (fieldValue(object, r.field) === r.value) === (r.operator !== "!="));
}

// ---- node selector terms ---------------------------------------------------------------

/** One requirement of a node selector term (`matchExpressions` on labels, `matchFields` on fields). */
export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[] | undefined;
}

/** A node selector term: all its requirements must hold. */
export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[] | undefined;
  readonly matchFields?: readonly NodeSelectorRequirement[] | undefined;
}

/** What a node selector reads of a node. */
export interface SelectedNode {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * Whether a node matches one term, as the scheduler's NodeAffinity reads it
 * (`nodeaffinity.NodeSelector`): every expression on the node's labels and every field
 * requirement, which may name `metadata.name` only, hold. A term with neither matches
 * nothing.
 */
export function matchesNodeSelectorTerm(node: SelectedNode, term: NodeSelectorTerm): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  return (
    expressions.every((r) => requirementHolds(r.operator, r.values ?? [], Object.hasOwn(node.labels, r.key) ? node.labels[r.key] : undefined)) &&
    fields.every((r) => r.key === "metadata.name" && requirementHolds(r.operator, r.values ?? [], node.name))
  );
}

/** Whether a node matches some term of a required node selector (the terms are ORed; none matches nothing). */
export function matchesNodeSelectorTerms(node: SelectedNode, terms: readonly NodeSelectorTerm[]): boolean {
  return terms.some((term) => matchesNodeSelectorTerm(node, term));
}
