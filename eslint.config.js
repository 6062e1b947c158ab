import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The database drivers, their deep paths and the packages pg is built from (pg-pool, pg-protocol, pgpass, ...). */
const DRIVER_MODULE = '^(better-sqlite3|pg|pg-[\\w.-]+|pgpass)(\\x2F.*)?$';
const DRIVER_MESSAGE =
  "only the resource engine's storage (control-plane/src/resources/storage) uses the database drivers";
const DRIVER_IMPORTS = { patterns: [{ regex: DRIVER_MODULE, message: DRIVER_MESSAGE }] };
/**
 * The forms no-restricted-imports does not see: import('pg'), require('pg'), createRequire(...)('pg'),
 * require.resolve('better-sqlite3'), import.meta.resolve('pg'), and a name kept in a constant to load later:
 * outside the storage no string names a driver (import declarations are no-restricted-imports' to report).
 */
const DRIVER_LOADING = [
  `Literal[value=/${DRIVER_MODULE}/]:not(ImportDeclaration > .source, ExportAllDeclaration > .source, ExportNamedDeclaration > .source)`,
  `TemplateLiteral[quasis.length=1][quasis.0.value.cooked=/${DRIVER_MODULE}/]`,
].map((selector) => ({ selector, message: DRIVER_MESSAGE }));
/**
 * Typed documents (issue 22): a document has its resource's schema type (ResourceHandle<T>) or is checked to be
 * an object (isDocument, parseDocument in resources/doc-utils.ts); it is never asserted into shape.
 */
const TYPED_DOCUMENTS = [
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
];
const STORAGE = 'control-plane/src/resources/storage/**';

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
    files: ['control-plane/src/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...TYPED_DOCUMENTS] },
  },
  {
    // the storage boundary (issue 22): only the engine's storage loads the database drivers, in any form
    // (scripts and tests may: benchmarks and test helpers read the store directly)
    files: ['control-plane/src/**/*.ts', 'agent/src/**/*.ts', 'shared/src/**/*.ts'],
    ignores: [STORAGE],
    rules: {
      'no-restricted-imports': ['error', DRIVER_IMPORTS],
      'no-restricted-syntax': ['error', ...DRIVER_LOADING],
    },
  },
  {
    // both of the above (a later block's options replace an earlier block's for the same rule)
    files: ['control-plane/src/**/*.ts'],
    ignores: [STORAGE],
    rules: { 'no-restricted-syntax': ['error', ...TYPED_DOCUMENTS, ...DRIVER_LOADING] },
  },
  {
    // the agent's OS core is driven by the link, never the other way round (design.md)
    files: ['agent/src/os/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...DRIVER_IMPORTS.patterns,
            { regex: '(^|/)link(/|$)', message: 'agent/src/os imports nothing from agent/src/link' },
          ],
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
