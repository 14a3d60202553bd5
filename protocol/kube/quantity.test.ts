import assert from "node:assert/strict";
import { test } from "node:test";
import { compareQuantities, isQuantity, parseQuantity, quantityMilliValue, quantityValue } from "./quantity.ts";

// apimachinery's resource.ParseQuantity, Value and MilliValue (quantity_test.go).
const nanos = (value: unknown): bigint | undefined => parseQuantity(value)?.nanos;

test("quantities parse exactly, in nano-units: decimal and binary suffixes, exponents, fractions", () => {
  const cases: [unknown, bigint][] = [
    ["0", 0n],
    ["1", 1_000_000_000n],
    ["500m", 500_000_000n],
    ["0.1", 100_000_000n],
    ["1.5", 1_500_000_000n],
    ["100n", 100n],
    ["1u", 1000n],
    ["1k", 10n ** 12n],
    ["1M", 10n ** 15n],
    ["129M", 129n * 10n ** 15n],
    ["1E", 10n ** 27n],
    ["1Ki", 1024n * 10n ** 9n],
    ["1.5Gi", 3n * 2n ** 29n * 10n ** 9n],
    ["1e3", 10n ** 12n],
    ["1E3", 10n ** 12n],
    ["1e+3", 10n ** 12n],
    ["15e-1", 1_500_000_000n],
    ["-1", -1_000_000_000n],
    ["+2", 2_000_000_000n],
    ["007", 7_000_000_000n],
    ["1.", 1_000_000_000n],
    [".5", 500_000_000n],
    ["1.G", 10n ** 18n],
    ["0.9n", 1n],
    ["1e-20", 1n],
    ["-0.1n", -1n],
    ["8Ei", (2n ** 63n - 1n) * 10n ** 9n],
    [" 2Gi ", 2n ** 31n * 10n ** 9n],
    ["+", 0n],
    [".", 0n],
    ["Ki", 0n],
    [20, 20_000_000_000n],
    [0.25, 250_000_000n],
  ];
  for (const [input, want] of cases) assert.equal(nanos(input), want, JSON.stringify(input));
});

test("what is no quantity", () => {
  for (const bad of ["", " ", "abc", "1Gb", "1e", "1i", "1m3", "--1", "1.2.3", "1 k", "1e3.5", "1ki", "3Xi", "١", Number.NaN, Number.POSITIVE_INFINITY, {}, null, undefined]) {
    assert.equal(parseQuantity(bad), undefined, String(bad));
    assert.equal(isQuantity(bad), false, String(bad));
  }
});

test("absurd exponents are held at a bound instead of building a huge number", () => {
  assert.equal(compareQuantities(parseQuantity("1e999999999") ?? { nanos: 0n }, parseQuantity("1e100") ?? { nanos: 0n }), 1);
  assert.equal(quantityValue(parseQuantity("1e999999999") ?? { nanos: 0n }), Number.MAX_SAFE_INTEGER);
  assert.equal(nanos("1e-999999999"), 1n);
});

test("Value and MilliValue round up in magnitude and stay within safe integers", () => {
  const cases: [string, number, number][] = [
    ["500m", 1, 500],
    ["0.1", 1, 100],
    ["100n", 1, 1],
    ["2", 2, 2000],
    ["1.1Gi", 1181116007, 1181116006400],
    ["-1.5", -2, -1500],
    ["1P", 1e15, Number.MAX_SAFE_INTEGER],
    ["1E", Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    ["128974848", 128974848, 128974848000],
    ["0", 0, 0],
  ];
  for (const [text, value, milli] of cases) {
    const quantity = parseQuantity(text);
    assert.ok(quantity, text);
    assert.equal(quantityValue(quantity), value, `${text} Value`);
    assert.equal(quantityMilliValue(quantity), milli, `${text} MilliValue`);
  }
});

test("quantities compare by value, whatever their spelling", () => {
  const compare = (a: string, b: string): number => compareQuantities(parseQuantity(a) ?? { nanos: -1n }, parseQuantity(b) ?? { nanos: -1n });
  assert.equal(compare("1Ki", "1024"), 0);
  assert.equal(compare("1k", "1Ki"), -1);
  assert.equal(compare("0.5", "500m"), 0);
  assert.equal(compare("0", "0Gi"), 0);
  assert.equal(compare("2", "1999m"), 1);
  assert.equal(compare("1e3", "1k"), 0);
});
