import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const DATABASE_DRIVERS = ['better-sqlite3', 'pg'].map((name) => ({
  name,
  message: "only the resource engine's storage (control-plane/src/resources/storage) uses the database drivers",
}));

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'var/**', 'images/.cache/**', 'images/out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // the storage boundary (issue 22): only the engine's storage opens the database drivers
    files: ['control-plane/src/**/*.ts', 'agent/src/**/*.ts', 'shared/src/**/*.ts'],
    ignores: ['control-plane/src/resources/storage/**', 'control-plane/src/db/**'],
    rules: { 'no-restricted-imports': ['error', { paths: DATABASE_DRIVERS }] },
  },
  {
    // typed documents (issue 22): a document has its resource's schema type (ResourceHandle<T>) or is checked to be
    // an object (isDocument, parseDocument in resources/doc-utils.ts); it is never asserted into shape
    files: ['control-plane/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "TSAsExpression > TSTypeReference.typeAnnotation[typeName.name='Doc'], TSAsExpression > .typeAnnotation TSTypeReference[typeName.name='Doc']",
          message:
            "no 'as Doc': type the document by its resource (ResourceHandle<T>) or check it (isDocument, parseDocument)",
        },
        {
          selector: 'TSAsExpression > TSAsExpression.expression > TSUnknownKeyword.typeAnnotation',
          message: "no 'as unknown as': parse the value (zod) or type it where it is made",
        },
      ],
    },
  },
  {
    // the agent's OS core is driven by the link, never the other way round (design.md)
    files: ['agent/src/os/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: DATABASE_DRIVERS,
          patterns: [{ regex: '(^|/)link(/|$)', message: 'agent/src/os imports nothing from agent/src/link' }],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ignores: ['control-plane/src/web/assets/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', require: 'readonly', module: 'writable' } },
  },
  {
    // the dashboard's plain browser modules (served by the control plane, type-checked by control-plane/tsconfig.dashboard.json)
    files: ['control-plane/src/web/assets/**/*.js'],
    languageOptions: { sourceType: 'module', globals: globals.browser },
  },
);
