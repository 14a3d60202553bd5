/**
 * Malformed HTTP/1.1 framing, as raw bytes a well-behaved client library would never
 * write: bad and duplicate `Content-Length`, `Transfer-Encoding` beside `Content-Length`,
 * obfuscated and unknown transfer codings, bad chunk sizes and chunk lines, header floods,
 * bad header names and line endings, bad request lines. RFC 9112 §6.3 and §11.2: a server
 * must refuse these (400, or close the connection), never guess a framing, since a guess
 * that differs from a proxy's is request smuggling.
 *
 * Where a guess would smuggle, the bytes a wrong guess reads as a second request are a
 * `smuggled` request that the surface *would* act on (a replicas POST that creates a pod,
 * a ConfigMap create): so a surface that guesses changes the cluster, and the suite's
 * before/after comparison counts it. The outer request's own body is never valid, so a
 * surface that reads the framing right refuses it. Pure: builds bytes; `raw.ts` sends.
 */
import fc from "fast-check";

/** One malformed request: what it is, its bytes, and whether a server may rightly wait for more instead of answering. */
export interface FramingCase {
  readonly label: string;
  readonly bytes: Uint8Array;
  /** A declared body longer than what is sent: a server waiting for the rest (until its timeout) is right. */
  readonly mayWait?: boolean;
}

/** Where the framing is sent, and what a surface would act on if it read a smuggled request. */
export interface FramingTarget {
  /** The `Host` header value. */
  readonly host: string;
  /** A route the surface serves with a body (POST). */
  readonly path: string;
  /** A whole request (head and body) that the surface would act on: read as a second request only by a wrong guess. */
  readonly smuggled: string;
}

const CRLF = "\r\n";
/** A body no route accepts: not JSON. */
const INVALID_BODY = "{not json";
const encoder = new TextEncoder();

function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** 512 bytes of every value (CR and LF included, never a blank line). */
function garbageBytes(): Uint8Array {
  return Uint8Array.from({ length: 512 }, (_, i) => (i * 167 + 13) % 256);
}

/** A request head: request line, Host, then `headers` (each a whole line), blank line. */
function head(target: FramingTarget, headers: readonly string[], requestLine = `POST ${target.path} HTTP/1.1`): string {
  return [requestLine, `Host: ${target.host}`, ...headers, "", ""].join(CRLF);
}

/** A chunked encoding of `body` in one chunk, and the last chunk. */
function chunked(body: string): string {
  return `${Buffer.byteLength(body).toString(16)}${CRLF}${body}${CRLF}0${CRLF}${CRLF}`;
}

/** The fixed cases for `target`: every kind of malformed framing once. */
export function framingCases(target: FramingTarget): FramingCase[] {
  const json = "application/json";
  const body = INVALID_BODY;
  const n = Buffer.byteLength(body);
  // The smuggling prefix: an empty chunked body, then a whole request.
  const smuggle = `0${CRLF}${CRLF}${target.smuggled}`;
  const m = Buffer.byteLength(smuggle);
  const inner = target.smuggled;
  const k = Buffer.byteLength(inner);
  const plain = (label: string, headers: readonly string[], payload: string, options: { mayWait?: boolean; requestLine?: string } = {}): FramingCase => ({
    label,
    bytes: bytes(head(target, [`Content-Type: ${json}`, ...headers], options.requestLine) + payload),
    ...(options.mayWait ? { mayWait: true } : {}),
  });
  return [
    // Content-Length
    plain("Content-Length not a number", ["Content-Length: abc"], body),
    plain("Content-Length negative", ["Content-Length: -1"], body),
    plain("Content-Length with a plus sign", [`Content-Length: +${n}`], body),
    plain("Content-Length in hex", [`Content-Length: 0x${n.toString(16)}`], body),
    plain("Content-Length past 2^64", ["Content-Length: 99999999999999999999999"], body),
    plain("Content-Length with a space inside", [`Content-Length: 1 ${n}`], body),
    plain("Content-Length empty", ["Content-Length: "], body),
    plain("two different Content-Length headers, the first 0 (smuggles a request)", ["Content-Length: 0", `Content-Length: ${k}`], inner),
    plain("two different Content-Length headers, the last 0 (smuggles a request)", [`Content-Length: ${k}`, "Content-Length: 0"], inner),
    plain("Content-Length list of two values, the first 0 (smuggles a request)", [`Content-Length: 0, ${k}`], inner),
    plain("Content-Length shorter than the body (the rest is garbage)", ["Content-Length: 1"], `x${"\u0001garbage"}${CRLF}${CRLF}`),
    plain("Content-Length longer than the body sent", [`Content-Length: ${n + 100}`], body, { mayWait: true }),
    // Transfer-Encoding beside Content-Length, and obfuscated
    plain("Transfer-Encoding chunked and Content-Length (smuggles a request)", ["Transfer-Encoding: chunked", `Content-Length: ${m}`], smuggle),
    plain("Content-Length then Transfer-Encoding chunked (smuggles a request)", [`Content-Length: ${m}`, "Transfer-Encoding: chunked"], smuggle),
    plain("Transfer-Encoding with a space before the colon", ["Transfer-Encoding : chunked", `Content-Length: ${m}`], smuggle),
    plain("Transfer-Encoding with a tab", ["Transfer-Encoding:\tchunked", `Content-Length: ${m}`], smuggle),
    plain("Transfer-Encoding xchunked", ["Transfer-Encoding: xchunked", `Content-Length: ${m}`], smuggle),
    plain("Transfer-Encoding chunked, identity", ["Transfer-Encoding: chunked, identity", `Content-Length: ${m}`], smuggle),
    plain("two Transfer-Encoding headers", ["Transfer-Encoding: chunked", "Transfer-Encoding: identity", `Content-Length: ${m}`], smuggle),
    plain("Transfer-Encoding gzip, not chunked last", ["Transfer-Encoding: gzip"], body),
    plain("Transfer-Encoding unknown coding", ["Transfer-Encoding: fuzz"], body),
    plain("Transfer-Encoding chunked, chunked", ["Transfer-Encoding: chunked, chunked"], chunked(body)),
    plain("Transfer-Encoding chunked in HTTP/1.0", ["Transfer-Encoding: chunked"], chunked(body), { requestLine: `POST ${target.path} HTTP/1.0` }),
    plain("Transfer-Encoding folded onto a second line", ["Transfer-Encoding:", " chunked", `Content-Length: ${m}`], smuggle),
    // Chunks
    plain("chunk size not hex", ["Transfer-Encoding: chunked"], `zz${CRLF}${body}${CRLF}0${CRLF}${CRLF}`),
    plain("chunk size negative", ["Transfer-Encoding: chunked"], `-1${CRLF}${body}${CRLF}0${CRLF}${CRLF}`),
    plain("chunk size past 2^64", ["Transfer-Encoding: chunked"], `fffffffffffffffffffff${CRLF}${body}${CRLF}0${CRLF}${CRLF}`),
    plain("chunk size with 0x", ["Transfer-Encoding: chunked"], `0x${n.toString(16)}${CRLF}${body}${CRLF}0${CRLF}${CRLF}`),
    plain("chunk size empty", ["Transfer-Encoding: chunked"], `${CRLF}${body}${CRLF}0${CRLF}${CRLF}`),
    plain("chunk data longer than its size", ["Transfer-Encoding: chunked"], `1${CRLF}${body}${CRLF}0${CRLF}${CRLF}`),
    plain("chunk without its CRLF", ["Transfer-Encoding: chunked"], `${n.toString(16)}${CRLF}${body}0${CRLF}${CRLF}`),
    plain("chunk size with a bare LF", ["Transfer-Encoding: chunked"], `${n.toString(16)}\n${body}\n0\n\n`),
    plain("chunk extension 64 KiB long", ["Transfer-Encoding: chunked"], `${n.toString(16)};${"e".repeat(65_536)}${CRLF}${body}${CRLF}0${CRLF}${CRLF}`),
    plain("chunk size with a space inside", ["Transfer-Encoding: chunked"], `1 0${CRLF}${body}${CRLF}0${CRLF}${CRLF}`),
    plain("no last chunk", ["Transfer-Encoding: chunked"], `${n.toString(16)}${CRLF}${body}${CRLF}`, { mayWait: true }),
    plain("trailer header 64 KiB long", ["Transfer-Encoding: chunked"], `${n.toString(16)}${CRLF}${body}${CRLF}0${CRLF}X-Trailer: ${"t".repeat(65_536)}${CRLF}${CRLF}`),
    // Header floods and bad headers
    plain("10,000 headers", Array.from({ length: 10_000 }, (_, i) => `X-Flood-${i}: x`), ""),
    plain("one header of 1 MiB", [`X-Big: ${"b".repeat(1024 * 1024)}`], ""),
    plain("100 Content-Length headers", Array.from({ length: 100 }, () => `Content-Length: ${n}`), body),
    plain("a header line without a colon", ["Content-Length 5"], body),
    plain("a header name with a space", [`Content Length: ${n}`], body),
    plain("a header name empty", [": x", `Content-Length: ${n}`], body),
    plain("a NUL in a header value", [`X-Nul: a\u0000b`, `Content-Length: ${n}`], body),
    plain("a bare CR in a header value", [`X-Cr: a\rb`, `Content-Length: ${n}`], body),
    plain("an obsolete folded header", ["X-Folded: a", " b", `Content-Length: ${n}`], body),
    { label: "head lines ending in a bare LF", bytes: bytes(`POST ${target.path} HTTP/1.1\nHost: ${target.host}\nContent-Length: ${n}\n\n${body}`) },
    { label: "a Host header missing (HTTP/1.1)", bytes: bytes(`POST ${target.path} HTTP/1.1${CRLF}Content-Length: ${n}${CRLF}${CRLF}${body}`) },
    plain("two Host headers", ["Host: other.invalid", `Content-Length: ${n}`], body),
    // Request lines
    plain("an unknown HTTP version", [`Content-Length: ${n}`], body, { requestLine: `POST ${target.path} HTTP/9.9` }),
    plain("HTTP/2.0 on an HTTP/1 connection", [`Content-Length: ${n}`], body, { requestLine: `POST ${target.path} HTTP/2.0` }),
    plain("a request line without a version", [`Content-Length: ${n}`], body, { requestLine: `POST ${target.path}` }),
    plain("a request line with two spaces", [`Content-Length: ${n}`], body, { requestLine: `POST  ${target.path} HTTP/1.1` }),
    plain("a method in lower case", [`Content-Length: ${n}`], body, { requestLine: `post ${target.path} HTTP/1.1` }),
    plain("a target of 1 MiB", [`Content-Length: ${n}`], body, { requestLine: `POST ${target.path}?${"q".repeat(1024 * 1024)} HTTP/1.1` }),
    plain("a target with a space", [`Content-Length: ${n}`], body, { requestLine: `POST ${target.path} x HTTP/1.1` }),
    plain("an absolute-form target", [`Content-Length: ${n}`], body, { requestLine: `POST http://other.invalid${target.path} HTTP/1.1` }),
    // Garbage with no blank line is a head not yet ended: a server may wait for its end (its header timeout bounds that).
    { label: "binary garbage, no end of head", bytes: garbageBytes(), mayWait: true },
    { label: "binary garbage, then a blank line", bytes: Uint8Array.from([...garbageBytes(), ...bytes(`${CRLF}${CRLF}`)]) },
    { label: "a TLS ClientHello on a plain port (or plain HTTP on TLS)", bytes: Uint8Array.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03, ...Array.from({ length: 64 }, (_, i) => i)]), mayWait: true },
    plain("Expect: 100-continue with a body never sent", ["Expect: 100-continue", `Content-Length: ${n}`], "", { mayWait: true }),
    plain("Upgrade h2c with a body", ["Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c", "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA", `Content-Length: ${n}`], body),
  ];
}

/** Generated variants: random Content-Length and chunk-size tokens, and random header counts. */
export function framingVariants(target: FramingTarget): fc.Arbitrary<FramingCase> {
  const token = fc.oneof(fc.stringMatching(/^[-+ 0-9a-fA-FxX.,;]{0,24}$/), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String));
  const contentLength = token.map((value): FramingCase => ({
    label: `Content-Length ${JSON.stringify(value)}`,
    bytes: bytes(head(target, ["Content-Type: application/json", `Content-Length: ${value}`]) + INVALID_BODY),
    mayWait: true,
  }));
  const chunkSize = token.map((value): FramingCase => ({
    label: `chunk size ${JSON.stringify(value)}`,
    bytes: bytes(head(target, ["Content-Type: application/json", "Transfer-Encoding: chunked"]) + `${value}${CRLF}${INVALID_BODY}${CRLF}0${CRLF}${CRLF}`),
    mayWait: true,
  }));
  const flood = fc.integer({ min: 100, max: 20_000 }).map((count): FramingCase => ({ label: `${count} headers`, bytes: bytes(head(target, Array.from({ length: count }, (_, i) => `X-F${i}: ${"v".repeat(i % 50)}`))) }));
  return fc.oneof(contentLength, chunkSize, flood);
}
