/**
 * Object names, label keys and values, and the other syntax rules of apimachinery's
 * `util/validation` (kube-apiserver v1.32), with its messages word for word: each check
 * returns the failures it found (none: valid). The one home of these rules for the sim's
 * validation, the protocol's schemas and the controllers' generated names. Pure.
 */

const DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?";
const QUALIFIED_NAME = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;
const CONFIG_KEY = "[-._a-zA-Z0-9]+";

const whole = (source: string): RegExp => new RegExp(`^${source}$`);
const LABEL_RE = whole(DNS1123_LABEL);
const SUBDOMAIN_RE = whole(DNS1123_SUBDOMAIN);
const DNS1035_RE = whole(DNS1035_LABEL);
const QUALIFIED_RE = whole(QUALIFIED_NAME);
const LABEL_VALUE_RE = whole(LABEL_VALUE);
const CONFIG_KEY_RE = whole(CONFIG_KEY);

/** `must be no more than N characters`. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** A regex failure with examples, as `validation.RegexError` words it (its double space included). */
export function regexError(message: string, regex: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${regex}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${regex}')`;
}

/** `must be between 1 and 65535, inclusive`. */
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** An RFC 1123 label (namespace names, container and port names): at most 63 characters. */
export function isDns1123Label(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push(maxLenError(63));
  if (!LABEL_RE.test(value)) {
    // A valid subdomain that is no label can only have dots.
    errors.push(SUBDOMAIN_RE.test(value) ? "must not contain dots" : regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", DNS1123_LABEL, "my-name", "123-abc"));
  }
  return errors;
}

/** An RFC 1123 subdomain (most object names): at most 253 characters. */
export function isDns1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push(maxLenError(253));
  if (!SUBDOMAIN_RE.test(value)) errors.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS1123_SUBDOMAIN, "example.com"));
  return errors;
}

/** An RFC 1035 label (Service names): starts with a letter, at most 63 characters. */
export function isDns1035Label(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push(maxLenError(63));
  if (!DNS1035_RE.test(value)) errors.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", DNS1035_LABEL, "my-name", "abc-123"));
  return errors;
}

/** A qualified name (label and annotation keys, finalizers): `[prefix/]name`, the name at most 63 characters. */
export function isQualifiedName(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? "";
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    name = parts[1] ?? "";
    if (prefix.length === 0) errors.push("prefix part must be non-empty");
    else errors.push(...isDns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [`a qualified name ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errors.push("name part must be non-empty");
  else if (name.length > 63) errors.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_RE.test(name)) errors.push(`name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME, "MyName", "my.name", "123-abc")}`);
  return errors;
}

/** How many bytes `text` takes in UTF-8 (Go's `len` of a string). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** A label value: empty, or a qualified name part of at most 63 characters. */
export function isValidLabelValue(value: string): string[] {
  const errors: string[] = [];
  // kube-apiserver v1.36 counts a label value in bytes (checked by npm run conformance).
  if (utf8Length(value) > 63) errors.push("must be no more than 63 bytes");
  if (!LABEL_VALUE_RE.test(value)) errors.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_VALUE, "MyValue", "my_value", "12345"));
  return errors;
}

/** A path segment (RBAC object names, which may hold `:`). */
export function isValidPathSegmentName(value: string): string[] {
  if (value === "." || value === "..") return [`may not be '${value}'`];
  const errors: string[] = [];
  for (const illegal of ["/", "%"]) if (value.includes(illegal)) errors.push(`may not contain '${illegal}'`);
  return errors;
}

/** A port number. */
export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** An IANA service name (container and service port names). */
export function isValidPortName(port: string): string[] {
  const errors: string[] = [];
  if (port.length > 15) errors.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errors.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(port)) errors.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errors.push("must not contain consecutive hyphens");
  if (port.startsWith("-") || port.endsWith("-")) errors.push("must not begin or end with a hyphen");
  return errors;
}

/** A ConfigMap or Secret key. */
export function isConfigMapKey(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push(maxLenError(253));
  if (!CONFIG_KEY_RE.test(value)) errors.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_KEY, "key.name", "KEY_NAME", "key-name"));
  if (value === ".") errors.push("must not be '.'");
  else if (value === "..") errors.push("must not be '..'");
  else if (value.startsWith("..")) errors.push("must not start with '..'");
  return errors;
}

/** How a kind's names are checked: the rule applied to `name`, and to `generateName` as a prefix. */
export type NameRule = (name: string, prefix: boolean) => string[];

/**
 * The generated suffix may follow a trailing dash, so a prefix ending in one is checked as
 * if it ended in a letter (upstream `maskTrailingDash`, which also drops the character
 * before the dash).
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
}

/** `NameIsDNSSubdomain`: the rule of most kinds. */
export const dnsSubdomainName: NameRule = (name, prefix) => isDns1123Subdomain(prefix ? maskTrailingDash(name) : name);
/** `NameIsDNSLabel`: Namespaces. */
export const dnsLabelName: NameRule = (name, prefix) => isDns1123Label(prefix ? maskTrailingDash(name) : name);
/** `NameIsDNS1035Label`: Services. */
export const dns1035Name: NameRule = (name, prefix) => isDns1035Label(prefix ? maskTrailingDash(name) : name);
/** `ValidateRBACName` (a path segment, prefix or not): RBAC kinds, whose names may hold `:`. */
export const pathSegmentName: NameRule = (name) => isValidPathSegmentName(name);

/** The characters of a generated name's suffix: no vowels, no look-alikes (`util/rand.String`). */
const GENERATED_CHARS = "bcdfghjklmnpqrstvwxz2456789";
/** The longest `generateName` prefix kept: the name stays within 63 characters with the suffix. */
const MAX_GENERATED_PREFIX = 58;

/**
 * The name the API server gives an object created with `generateName` (its
 * `SimpleNameGenerator`): the prefix cut to 58 characters, then 5 random characters.
 * `random` returns a number in [0, 1), as `Math.random` does.
 */
export function generatedName(prefix: string, random: () => number = Math.random): string {
  let suffix = "";
  for (let i = 0; i < 5; i += 1) suffix += GENERATED_CHARS[Math.floor(random() * GENERATED_CHARS.length)] ?? "";
  return `${prefix.slice(0, MAX_GENERATED_PREFIX)}${suffix}`;
}
