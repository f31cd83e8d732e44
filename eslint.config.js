// Lint as graphile-worker and bullmq do: typescript-eslint's type-checked rules, with the two that
// matter most for a worker made errors: a promise nobody awaits is a job nobody finishes.
import js from '@eslint/js';
import promise from 'eslint-plugin-promise';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // src/wasm/*.ts and src/*/wasm/*.ts are AssemblyScript, which its compiler checks (npm run build:wasm, lint:wasm).
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'src/wasm/*.ts', 'src/*/wasm/*.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  promise.configs['flat/recommended'],
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Re-rejecting a caught `unknown` keeps the original error; wrapping it would lose its class.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // Naming and chaining style, not correctness: our promise code reads better with its own names.
      'promise/param-names': 'off',
      'promise/always-return': 'off',
      'promise/catch-or-return': 'off',
    },
  },
  {
    // Migrations take Kysely<any> by design (they must never import application types, Kysely's docs).
    files: ['migrations/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests read untyped JSON bodies on purpose; the promise rules stay on.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Casts in tests document what a handler table or a raw row holds; some are needed by tsc.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // Node scripts (the WebAssembly build).
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly' } },
  },
);
