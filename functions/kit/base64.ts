/**
 * Base64 of UTF-8 text, both ways, as Go encodes a `[]byte` in JSON and Kubernetes an
 * admission patch: `btoa`/`atob` alone handle only Latin-1. The same in Node and workerd.
 */

/** Base64 (standard alphabet, padded) of the UTF-8 bytes of `text`. */
export function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The UTF-8 text `encoded` holds; throws on anything not base64 or not UTF-8. */
export function fromBase64(encoded: string): string {
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
}
