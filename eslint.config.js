// ESLint flat config: typescript-eslint's type-checked rules over server/, shared/, ui/, e2e/, bench/,
// eval/ and scripts/, React hook rules for the panels, and eslint-config-prettier last (formatting is
// prettier's job: `npm run lint` checks it, `npm run format` applies it). Type information comes from the project service, which picks
// tsconfig.json for server-side files; the panels use tsconfig.ui.json.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'data/',
      'test-results/',
      'playwright-report/',
      'results/',
      'e2e/screenshots/',
      '.cache/',
      '**/*.generated.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      // Handlers and ports are async by contract (a router handler, a BlobStore, an embedder): an
      // implementation that happens to need no await stays async so a throw becomes a rejection.
      '@typescript-eslint/require-await': 'off',
      // `_`-prefixed names are deliberately unused (positional parameters, discarded destructuring).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Playwright reads fixture dependencies from the first parameter, which must be a destructuring pattern (`{}` when none).
      'no-empty-pattern': ['error', { allowObjectPatternsAsParameters: true }],
    },
  },
  {
    // vitest's asymmetric matchers (`expect.any`, `expect.stringMatching`, `expect.arrayContaining`) are typed `any`.
    files: ['**/*.test.ts', '**/*-contract.ts', 'e2e/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    // Browser code resolves modules like a bundler: its own tsconfig (see tsconfig.ui.json).
    files: ['ui/**/*.{ts,tsx}', 'e2e/host/*.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: ['./tsconfig.ui.json'], tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser },
    },
  },
  {
    files: ['ui/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    // The two classic hook rules, as errors. The React Compiler rules of the plugin's `recommended` preset
    // are left out: the panels are not compiled by React Compiler.
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // Scripts evaluated in a browser page (Playwright `page.evaluate` sources, fixture makers).
    files: ['demo/ocr/*.mjs', 'e2e/fixtures/make-canvas-clip.mjs'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
