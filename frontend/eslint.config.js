// @ts-check
// ESLint for the web client: `npm run lint` (make test-web runs it beside
// tsc). The TypeScript sources get ESLint's and typescript-eslint's
// recommended rules with type information, the React hooks rules (rules of
// hooks, exhaustive-deps and the React Compiler's checks) and TanStack
// Query's strict set. Every rule of these sets is on, but for the one below
// whose reason is given beside it.
import js from "@eslint/js";
import pluginQuery from "@tanstack/eslint-plugin-query";
import reactHooks from "eslint-plugin-react-hooks";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

/**
 * The screens are grouped by who uses them (src/features/<audience>); a
 * feature does not reach into another's files, so that each can change on
 * its own, and what two share lives in api/, auth/ or components/. The
 * newcomer's Welcome is the one exception: it offers the learner's
 * JoinClass and the teacher's CreateClass, the two ways to get an account.
 */
const features = ["learner", "teacher", "operator", "newcomer"];
/**
 * @param {string} feature
 * @param {string[]} [allowed] the features it may import from
 */
function otherFeatures(feature, allowed = []) {
  const others = features.filter((f) => f !== feature && !allowed.includes(f));
  return {
    files: [`src/features/${feature}/**`],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: `(^|/)\\.\\./(${others.join("|")})(/|$)`,
              message: `src/features/${feature} does not import another audience's screens: move what both need to api/, auth/ or components/.`,
            },
          ],
        },
      ],
    },
  };
}

export default defineConfig(
  globalIgnores(["dist/", "e2e/artifacts/", "src/api/schema.d.ts"]),
  {
    files: ["**/*.{ts,tsx}"],
    extends: [
      js.configs.recommended,
      tseslint.configs.recommendedTypeChecked,
      reactHooks.configs.flat.recommended,
      pluginQuery.configs["flat/recommended-strict"],
    ],
    languageOptions: {
      globals: globals.browser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // Off: an async function without await is how this code writes an
      // implementation of an interface that returns a Promise (Auth's token
      // and signOut, the tests' fake answers and pauses); the rule would
      // have each written as Promise.resolve(...) or Promise.reject(...),
      // which says the same less plainly. A Promise left unhandled is still
      // caught, by no-floating-promises and no-misused-promises.
      "@typescript-eslint/require-await": "off",
    },
  },
  otherFeatures("learner"),
  otherFeatures("teacher"),
  otherFeatures("operator"),
  otherFeatures("newcomer", ["learner", "teacher"]),
  {
    files: ["**/*.{js,mjs}"],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  {
    // The end-to-end tests run in Node, but the functions they hand to
    // playwright's page.evaluate run in the page.
    files: ["e2e/**/*.mjs"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
