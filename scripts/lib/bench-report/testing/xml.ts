/** Test support: a well-formedness check of the SVG the renderers write, without an XML library. */
import assert from "node:assert/strict";

/**
 * A small well-formedness check of XML text: every tag closed in order, attributes
 * quoted, no bare `&` or `<` in text. Returns the element names in document order.
 */
export function checkXml(xml: string): string[] {
  const names: string[] = [];
  const open: string[] = [];
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|<\?[^>]*\?>|<!--[\s\S]*?-->/g;
  let last = 0;
  for (const match of xml.matchAll(token)) {
    const between = xml.slice(last, match.index);
    assert.doesNotMatch(between, /<|&(?!(amp|lt|gt|quot|apos);)/, `bad text before offset ${match.index}: ${between.slice(0, 60)}`);
    last = match.index + match[0].length;
    const [, closing, name = "", , selfClosing] = match;
    if (match[0].startsWith("<?") || match[0].startsWith("<!--")) continue;
    if (closing) assert.equal(open.pop(), name, `</${name}> closes another element`);
    else {
      names.push(name);
      if (!selfClosing) open.push(name);
    }
  }
  assert.doesNotMatch(xml.slice(last), /</, "a tag that does not parse");
  assert.deepEqual(open, [], "unclosed elements");
  assert.equal(names[0], "svg", "the root is <svg>");
  return names;
}

/** The text content of every <text> element. */
export function texts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] ?? "");
}

