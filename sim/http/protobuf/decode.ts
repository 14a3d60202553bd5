/**
 * Protobuf request bodies → the JSON object the API server would have parsed had the
 * client sent JSON: camelCase fields, zero values left out where Go's `omitempty` leaves
 * them out, Time as RFC 3339, Quantity as its string, IntOrString as a number or a
 * string, bytes as base64, inline structs merged into their parent. Fields the definitions
 * do not declare are skipped.
 */
import type { Field, IConversionOptions, Type } from "protobufjs";
import { ApiError } from "../../contract.ts";
import { unwrap } from "./envelope.ts";
import { fullName, isInline, keepsZero, messageOf, messageType, SPECIAL } from "./schema.ts";

type Obj = Record<string, unknown>;

/** protobufjs' plain-object view: only fields present on the wire, int64 as numbers, bytes as base64. */
const PLAIN: IConversionOptions = { longs: Number, bytes: String, defaults: false, arrays: false, objects: false };

const isObj = (value: unknown): value is Obj => value !== null && typeof value === "object" && !Array.isArray(value);

/** A Go zero value, which `omitempty` leaves out of JSON. */
function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObj(value) && Object.keys(value).length === 0;
}

/** Decodes a protobuf request body (envelope and object); 415 for a kind the sim has no definition for, 400 for bytes that do not decode. */
export function decodeBody(bytes: Uint8Array): Obj {
  const { apiVersion, kind, raw } = unwrap(bytes);
  const type = messageType(apiVersion, kind);
  if (!type) {
    throw new ApiError(415, "UnsupportedMediaType", `the sim cannot decode ${apiVersion}, Kind=${kind} from protobuf - send it as application/json`);
  }
  let plain: Obj;
  try {
    plain = type.toObject(type.decode(raw), PLAIN);
  } catch (error) {
    throw new ApiError(400, "BadRequest", `the protobuf body of ${apiVersion}, Kind=${kind} could not be decoded: ${(error as Error).message}`);
  }
  return { kind, apiVersion, ...messageToJson(type, plain) };
}

/** A plain message of `type` (protobufjs `toObject` with {@link PLAIN}) as Kubernetes JSON. */
export function messageToJson(type: Type, message: Obj): Obj {
  const out: Obj = {};
  for (const field of type.fieldsArray) {
    if (!Object.hasOwn(message, field.name)) continue;
    const value = fieldToJson(field, message[field.name]);
    if (value === undefined || (!keepsZero(field) && isEmpty(value))) continue;
    if (isInline(field) && isObj(value)) Object.assign(out, value);
    else out[field.name] = value;
  }
  return out;
}

function fieldToJson(field: Field, value: unknown): unknown {
  const type = messageOf(field);
  const one = (v: unknown): unknown => (type ? valueToJson(type, v) : v);
  if (field.map) {
    const entries = Object.entries(isObj(value) ? value : {}).map(([k, v]) => [k, one(v)] as const);
    return Object.fromEntries(entries.filter(([, v]) => v !== undefined));
  }
  if (field.repeated) return Array.isArray(value) ? value.map(one) : [];
  return one(value);
}

function valueToJson(type: Type, value: unknown): unknown {
  const message = isObj(value) ? value : {};
  switch (fullName(type)) {
    case SPECIAL.time:
      return timeToJson(message);
    case SPECIAL.quantity:
      return typeof message.string === "string" && message.string !== "" ? message.string : undefined;
    case SPECIAL.intOrString:
      return message.type === 1 ? String(message.strVal ?? "") : Number(message.intVal ?? 0);
    default:
      return messageToJson(type, message);
  }
}

/** metav1.Time as Go's JSON writes it: RFC 3339 in UTC to the second; the zero time is left out. */
function timeToJson(message: Obj): string | undefined {
  const seconds = Number(message.seconds ?? 0);
  const nanos = Number(message.nanos ?? 0);
  if (seconds === 0 && nanos === 0) return undefined;
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}
