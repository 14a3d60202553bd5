import { isObject, type Json } from "./merge.ts";

/** A failed JSON patch: `test` mismatches and bad paths. */
export class PatchError extends Error {}

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: Json;
}

function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new PatchError(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function resolveParent(doc: Json, parts: string[], pointer: string): { parent: Json; key: string } {
  let current: Json = doc;
  for (const part of parts.slice(0, -1)) {
    if (Array.isArray(current)) current = current[Number(part)] as Json;
    else if (isObject(current)) current = current[part] as Json;
    else current = undefined as unknown as Json;
    if (current === undefined) throw new PatchError(`doc is missing path: "${pointer}"`);
  }
  const key = parts[parts.length - 1];
  if (key === undefined) throw new PatchError(`invalid path "${pointer}"`);
  return { parent: current, key };
}

function read(doc: Json, pointer: string): Json {
  let current: Json = doc;
  for (const part of parsePointer(pointer)) {
    const next: Json | undefined = Array.isArray(current) ? current[Number(part)] : isObject(current) ? current[part] : undefined;
    if (next === undefined) throw new PatchError(`doc is missing path: "${pointer}"`);
    current = next;
  }
  return current;
}

function arrayIndex(array: Json[], key: string, pointer: string, forInsert: boolean): number {
  if (key === "-" && forInsert) return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(key)) throw new PatchError(`invalid array index "${key}" in "${pointer}"`);
  const index = Number(key);
  if (index > array.length || (!forInsert && index === array.length)) throw new PatchError(`index out of range in "${pointer}"`);
  return index;
}

function add(doc: Json, pointer: string, value: Json): Json {
  const parts = parsePointer(pointer);
  if (parts.length === 0) return value;
  const { parent, key } = resolveParent(doc, parts, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, pointer, true), 0, value);
  else if (isObject(parent)) parent[key] = value;
  else throw new PatchError(`doc is missing path: "${pointer}"`);
  return doc;
}

function remove(doc: Json, pointer: string): Json {
  const parts = parsePointer(pointer);
  const { parent, key } = resolveParent(doc, parts, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, pointer, false), 1);
  else if (isObject(parent) && key in parent) delete parent[key];
  else throw new PatchError(`doc is missing path: "${pointer}"`);
  return doc;
}

function equal(a: Json, b: Json): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: Json): Json {
  if (Array.isArray(value)) return value.map(canonical);
  if (isObject(value)) return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical(value[k] as Json)]));
  return value;
}

/** Applies an RFC 6902 JSON patch to a copy of `target`. */
export function jsonPatch(target: unknown, operations: unknown): Json {
  if (!Array.isArray(operations)) throw new PatchError("a JSON patch must be an array of operations");
  let doc = structuredClone(target as Json);
  for (const raw of operations as unknown[]) {
    if (!isObject(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") throw new PatchError("each JSON patch operation needs op and path");
    const op = raw as unknown as Operation;
    switch (op.op) {
      case "add":
        doc = add(doc, op.path, structuredClone(op.value ?? null));
        break;
      case "remove":
        doc = remove(doc, op.path);
        break;
      case "replace":
        read(doc, op.path);
        doc = add(remove(doc, op.path), op.path, structuredClone(op.value ?? null));
        break;
      case "move": {
        const value = read(doc, op.from ?? "");
        doc = add(remove(doc, op.from ?? ""), op.path, value);
        break;
      }
      case "copy":
        doc = add(doc, op.path, structuredClone(read(doc, op.from ?? "")));
        break;
      case "test":
        if (!equal(read(doc, op.path), op.value ?? null)) throw new PatchError(`testing value ${op.path} failed`);
        break;
      default:
        throw new PatchError(`unexpected kind: ${op.op}`);
    }
  }
  return doc;
}
