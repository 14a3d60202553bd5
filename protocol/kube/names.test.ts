import assert from "node:assert/strict";
import { test } from "node:test";
import { dns1035Name, dnsLabelName, dnsSubdomainName, generatedName, isConfigMapKey, isDns1035Label, isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue, isValidPathSegmentName, isValidPortName, isValidPortNum, pathSegmentName } from "./names.ts";

// The messages are apimachinery's util/validation, word for word (its double space after the first example included).
const SUBDOMAIN_REGEX = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

test("DNS-1123 subdomains: the rule of most names, 253 characters at most", () => {
  assert.deepEqual(isDns1123Subdomain("web-1.example"), []);
  assert.deepEqual(isDns1123Subdomain("Bad_Name"), [
    `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${SUBDOMAIN_REGEX}')`,
  ]);
  assert.deepEqual(isDns1123Subdomain("a".repeat(254)), ["must be no more than 253 characters"]);
});

test("DNS-1123 labels (namespaces) and DNS-1035 labels (services): 63 characters, no dots, services start with a letter", () => {
  assert.deepEqual(isDns1123Label("demo"), []);
  assert.deepEqual(isDns1123Label("a".repeat(64)), ["must be no more than 63 characters"]);
  assert.deepEqual(isDns1123Label("a.b"), ["must not contain dots"]);
  assert.deepEqual(isDns1123Label("-a"), [
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.deepEqual(isDns1035Label("1web"), [
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  ]);
});

test("generateName is checked as a prefix: a trailing dash is fine there, not in a name", () => {
  assert.deepEqual(dnsSubdomainName("web-", true), []);
  assert.equal(dnsSubdomainName("web-", false).length, 1);
  assert.deepEqual(dnsLabelName("ns-", true), []);
  assert.deepEqual(dns1035Name("svc-", true), []);
  assert.equal(dns1035Name("1svc-", true).length, 1);
});

test("qualified names (label and annotation keys): prefix and name parts", () => {
  assert.deepEqual(isQualifiedName("app.kubernetes.io/name"), []);
  assert.deepEqual(isQualifiedName(`example.com/${"a".repeat(64)}`), ["name part must be no more than 63 characters"]);
  assert.deepEqual(isQualifiedName("/a"), ["prefix part must be non-empty"]);
  assert.deepEqual(isQualifiedName("Bad_Prefix/a"), [`prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${SUBDOMAIN_REGEX}')`]);
  assert.deepEqual(isQualifiedName("a/b/c"), [
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  ]);
  assert.deepEqual(isQualifiedName(""), [
    "name part must be non-empty",
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
});

test("label values: empty or a qualified name part, 63 characters at most", () => {
  assert.deepEqual(isValidLabelValue(""), []);
  assert.deepEqual(isValidLabelValue("v1.2_x"), []);
  assert.deepEqual(isValidLabelValue("a".repeat(64)), ["must be no more than 63 bytes"]);
  assert.equal(isValidLabelValue("é".repeat(32))[0], "must be no more than 63 bytes", "counted in UTF-8 bytes, as Go's len");
  assert.deepEqual(isValidLabelValue("-x"), [
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  ]);
});

test("RBAC names are path segments: colons allowed, no '/', '%', '.' or '..'", () => {
  assert.deepEqual(pathSegmentName("system:controller:job-controller", false), []);
  assert.deepEqual(isValidPathSegmentName("a/b%c"), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(isValidPathSegmentName(".."), ["may not be '..'"]);
});

test("ports, port names and config keys", () => {
  assert.deepEqual(isValidPortNum(443), []);
  assert.deepEqual(isValidPortNum(0), ["must be between 1 and 65535, inclusive"]);
  assert.deepEqual(isValidPortNum(70000), ["must be between 1 and 65535, inclusive"]);
  assert.deepEqual(isValidPortName("http-alt"), []);
  assert.deepEqual(isValidPortName("8080"), ["must contain at least one letter (a-z)"]);
  assert.deepEqual(isValidPortName("a-very-long-port-name"), ["must be no more than 15 characters"]);
  assert.deepEqual(isConfigMapKey("app.properties"), []);
  assert.deepEqual(isConfigMapKey("bad key"), ["a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]);
});

test("generateName: the prefix cut to 58 characters and 5 characters without vowels", () => {
  const values = [0, 0.5, 0.99, 0.2, 0.7];
  let i = 0;
  const random = (): number => values[i++ % values.length] ?? 0;
  assert.equal(generatedName("web-", random), "web-br9hx");
  assert.equal(generatedName("x".repeat(70), random), `${"x".repeat(58)}br9hx`);
  for (let n = 0; n < 20; n += 1) assert.match(generatedName("p-"), /^p-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
});
