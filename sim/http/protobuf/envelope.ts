/**
 * The Kubernetes protobuf envelope (apimachinery runtime/serializer/protobuf): the magic
 * bytes `k8s\0`, then a `runtime.Unknown` whose typeMeta names the object's apiVersion and
 * kind and whose raw holds the object's own message.
 */
import { ApiError } from "../../contract.ts";
import { unknownType } from "./schema.ts";

/** The four bytes every protobuf body starts with. */
export const MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** What an envelope carries. */
export interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  readonly raw: Uint8Array;
}

/** A decoded `runtime.Unknown` (an absent field reads as its default). */
interface UnknownMessage {
  readonly typeMeta?: { readonly apiVersion?: string; readonly kind?: string };
  readonly raw?: Uint8Array;
  readonly contentEncoding?: string;
}

/** Opens an envelope; 400 when the bytes are not one. */
export function unwrap(bytes: Uint8Array): Envelope {
  if (bytes.length < MAGIC.length || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new ApiError(400, "BadRequest", "the body of the request was not a Kubernetes protobuf message: it does not start with the k8s\\0 prefix");
  }
  let unknown: UnknownMessage;
  try {
    unknown = unknownType().decode(bytes.subarray(MAGIC.length)) as unknown as UnknownMessage;
  } catch (error) {
    throw new ApiError(400, "BadRequest", `the protobuf envelope of the request could not be decoded: ${(error as Error).message}`);
  }
  if (unknown.contentEncoding) throw new ApiError(415, "UnsupportedMediaType", `the content encoding ${unknown.contentEncoding} of the protobuf envelope is not supported`);
  return { apiVersion: unknown.typeMeta?.apiVersion ?? "", kind: unknown.typeMeta?.kind ?? "", raw: unknown.raw ?? new Uint8Array() };
}

/** Puts an object's message bytes in an envelope. */
export function wrap(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const type = unknownType();
  const body = type.encode(type.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: "", contentType: "" })).finish();
  const out = new Uint8Array(MAGIC.length + body.length);
  out.set(MAGIC, 0);
  out.set(body, MAGIC.length);
  return out;
}
