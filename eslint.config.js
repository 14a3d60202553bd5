// @ts-check
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import js from "@eslint/js";
import importX, { createNodeResolver } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

/** The repository root: every folder below is resolved from here, whatever the working directory. */
const ROOT = dirname(fileURLToPath(import.meta.url));

/** Test code: test files beside the code, benches, and test support kept in a `testing/` folder (functions/kit/testing/, relay/testing/). */
const TEST_CODE = ["**/*.test.ts", "**/*.bench.ts", "**/testing/**"];

/** What test code may import on top of its folder's own rules. */
const TEST_SUPPORT = ["functions/kit/testing", "test/support"];

/** Controller families (functions/controllers/<family>/), read from disk so a new family is covered without editing this file. */
const FAMILIES = readdirSync(join(ROOT, "functions/controllers"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/**
 * One boundary: files under `target` may import only from `allowed` (and packages). A
 * whitelist rather than a deny list, so a new top-level folder is forbidden until allowed.
 * @param {string} target
 * @param {string[]} allowed
 * @param {string} message
 * @param {boolean} test whether the zone is for test code (which may also import TEST_SUPPORT)
 */
function only(target, allowed, message, test) {
  return {
    target,
    from: ".",
    except: ["node_modules", ...allowed, ...(test ? TEST_SUPPORT : [])],
    message: test ? `${message}; test code also functions/kit/testing/ and test/support/.` : `${message}.`,
  };
}

/**
 * The folder boundaries, for production code or for test code. `test/` has no zone: it may
 * import anything.
 * @param {boolean} test
 */
function zones(test) {
  return [
    // protocol/ is the floor shared by Node and workerd: it depends on nothing of edgeloop.
    only("protocol", ["protocol"], "protocol/ imports nothing of edgeloop (it is the floor every folder builds on)", test),
    // cli/ is Node plumbing under the sim, the relay and the scripts: it must not pull any of them in.
    only("cli", ["cli", "protocol"], "cli/ may import only cli/ and protocol/", test),
    // The sim is a stand-in for a real cluster: it must not know the Worker, the relay or the tools.
    only("sim", ["sim", "protocol", "cli"], "sim/ may import only sim/, protocol/ and cli/", test),
    // The real control plane is a stand-in's peer: it shares the sim's conventions (its flags) and nothing else of edgeloop.
    only("cluster", ["cluster", "protocol", "cli", "sim/flags.ts"], "cluster/ may import only cluster/, protocol/, cli/ and sim/flags.ts", test),
    // The relay ships alone in its image: anything else it imports ends up in the cluster.
    only("relay", ["relay", "protocol", "cli"], "relay/ may import only relay/, protocol/ and cli/", test),
    // Durable Objects run in workerd beside the Worker and know nothing of controllers.
    only("durable", ["durable", "protocol"], "durable/ may import only durable/ and protocol/", test),
    // The Worker runs in workerd: it bundles only itself, its Durable Objects and the protocol.
    only("functions", ["functions", "protocol", "durable"], "functions/ may import only functions/, protocol/ and durable/", test),
    // The kit is neutral: no controller and no Worker shell (app, routes, http, registry, bindings, deps, claims).
    only("functions/kit", ["functions/kit", "protocol", "durable"], "functions/kit/ may import only functions/kit/, protocol/ and durable/ (never controllers or the Worker shell)", test),
    // A controller family sees only itself, the kit and the protocol: no other family, no Worker shell, no Durable Object.
    ...FAMILIES.map((family) =>
      only(`functions/controllers/${family}`, [`functions/controllers/${family}`, "functions/kit", "protocol"], `functions/controllers/${family}/ may import only its own family folder, functions/kit/ and protocol/`, test),
    ),
    // Scripts are tools and may use everything that ships, but not the tests.
    { target: "scripts", from: "test", except: test ? ["support"] : [], message: test ? "scripts/ tests may import from test/ only test/support/." : "scripts/ may import anything except test/." },
    // Test support never ships, even where a folder's own zone above would let it through (functions/kit/testing/ from functions/, relay/testing/ from relay/).
    ...(test ? [] : [{ target: ["protocol", "cli", "sim", "cluster", "relay", "durable", "functions", "scripts"], from: "**/testing/**", except: [join(ROOT, "node_modules/**")], message: "production code must not import test support (a testing/ folder such as functions/kit/testing/); only test code may." }]),
  ];
}

export default tseslint.config(
  { ignores: ["node_modules/**", ".edgeloop/**", "dist/**", ".wrangler/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/explicit-function-return-type": ["error", { allowExpressions: true, allowTypedFunctionExpressions: true, allowHigherOrderFunctions: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Also forbids `import("...")` type annotations, which the boundary rules below would not see.
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "Read configuration once at the entry point (main/script) and pass it in." }],
      "eqeqeq": ["error", "smart"],
    },
  },
  {
    // Entry points are where configuration is parsed; they may read the environment.
    files: ["**/main.ts", "scripts/**/*.ts", "test/**/*.ts", "**/*.test.ts"],
    rules: { "no-restricted-properties": "off" },
  },
  {
    // Folder boundaries. Imports are resolved to files (relative imports carry `.ts`); an
    // import that does not resolve would be skipped silently, so relative ones must resolve.
    files: ["**/*.{ts,mts,cts,js,mjs,cjs}"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".mts", ".js", ".mjs", ".json"], extensionAlias: { ".js": [".ts", ".js"] } })],
    },
    rules: {
      // Without a resolved path the zones below cannot fire: an unresolvable relative import is an error.
      "import-x/no-unresolved": ["error", { ignore: ["^[^.]"] }],
      "import-x/no-restricted-paths": ["error", { basePath: ROOT, zones: zones(false) }],
    },
  },
  {
    // Test code follows its folder's boundaries but may also import the test support.
    files: TEST_CODE,
    rules: { "import-x/no-restricted-paths": ["error", { basePath: ROOT, zones: zones(true) }] },
  },
  {
    // protocol/, functions/ and durable/ run in workerd (protocol/ in Node too): no Node built-ins.
    files: ["protocol/**", "functions/**", "durable/**"],
    ignores: TEST_CODE,
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["node:*"], message: "protocol/, functions/ and durable/ run in workerd: no node: imports." }] }],
      "no-restricted-syntax": ["error", { selector: "ImportExpression[source.value=/^node:/]", message: "protocol/, functions/ and durable/ run in workerd: no node: imports." }],
    },
  },
);
