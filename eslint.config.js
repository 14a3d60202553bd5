// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/**", ".edgeloop/**", "dist/**", ".wrangler/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/explicit-function-return-type": ["error", { allowExpressions: true, allowTypedFunctionExpressions: true, allowHigherOrderFunctions: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
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
);
