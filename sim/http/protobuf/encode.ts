/**
 * Kubernetes JSON → protobuf response bodies, the reverse of ./decode.ts, for the kinds the
 * sim has definitions for. Fields the definitions do not declare are not sent.
 */
import type { Field, Type } from "protobufjs";
import { wrap } from "./envelope.ts";
import { fullName, isInline, messageOf, messageType, SPECIAL } from "./schema.ts";

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => value !== null && typeof value === "object" && !Array.isArray(value);

/** An object (with apiVersion and kind) as a protobuf body, or undefined when the sim has no definition for its kind. */
export function encodeBody(object: Obj): Uint8Array | undefined {
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const kind = typeof object.kind === "string" ? object.kind : "";
  const type = messageType(apiVersion, kind);
  if (!type) return undefined;
  return wrap(apiVersion, kind, type.encode(type.fromObject(jsonToMessage(type, object))).finish());
}

/** Kubernetes JSON as a plain message of `type`, for protobufjs `fromObject`. */
export function jsonToMessage(type: Type, json: Obj): Obj {
  const out: Obj = {};
  for (const field of type.fieldsArray) {
    // An inline struct's fields sit in the parent's JSON object.
    const value = isInline(field) ? json : json[field.name];
    if (value === undefined || value === null) continue;
    const converted = fieldToMessage(field, value);
    if (converted !== undefined) out[field.name] = converted;
  }
  return out;
}

function fieldToMessage(field: Field, value: unknown): unknown {
  const type = messageOf(field);
  const one = (v: unknown): unknown => (type ? valueToMessage(type, v) : v);
  if (field.map) {
    if (!isObj(value)) return undefined;
    const entries = Object.entries(value).map(([k, v]) => [k, one(v)] as const);
    return Object.fromEntries(entries.filter(([, v]) => v !== undefined && v !== null));
  }
  if (field.repeated) return Array.isArray(value) ? value.map(one) : undefined;
  return one(value);
}

function valueToMessage(type: Type, value: unknown): unknown {
  switch (fullName(type)) {
    case SPECIAL.time:
      return typeof value === "string" ? timeToMessage(value) : undefined;
    case SPECIAL.quantity:
      return typeof value === "string" || typeof value === "number" ? { string: String(value) } : undefined;
    case SPECIAL.intOrString:
      if (typeof value === "number") return { type: 0, intVal: value };
      return typeof value === "string" ? { type: 1, strVal: value } : undefined;
    default:
      return isObj(value) ? jsonToMessage(type, value) : undefined;
  }
}

/** An RFC 3339 time as seconds and nanos; undefined when it does not parse. */
function timeToMessage(text: string): Obj | undefined {
  const fraction = /\.(\d+)/.exec(text)?.[1] ?? "";
  const millis = Date.parse(text.replace(/\.\d+/, ""));
  if (Number.isNaN(millis)) return undefined;
  return { seconds: Math.floor(millis / 1000), nanos: Number(fraction.slice(0, 9).padEnd(9, "0")) };
}
