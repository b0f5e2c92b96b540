import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.lectern/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Only src/platform/config.ts reads process.env (pass config down instead).',
        },
      ],
    },
  },
  {
    // SQL has one home per table: the module's data-access file (*.data.ts; see test/architecture/tables.test.ts).
    files: ['src/modules/**/*.ts', 'src/app/**/*.ts', 'src/cli/**/*.ts', 'src/*.ts', 'workers/**/*.ts', 'seeds/**/*.ts'],
    ignores: ['**/*.data.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.type='Identifier'][callee.name=/^(db|knex|trx|tx)$/]",
          message: "Queries belong in the module's data-access file (*.data.ts): call its functions.",
        },
        {
          selector: "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(db|knex)$/]",
          message: "Queries belong in the module's data-access file (*.data.ts): call its functions.",
        },
        {
          selector: 'MemberExpression[property.name=/^(raw|whereRaw|selectRaw|orderByRaw|joinRaw|havingRaw)$/]',
          message: "Raw SQL belongs in the module's data-access file (*.data.ts).",
        },
        {
          selector:
            "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(query|relatedQuery)$/][callee.object.type='Identifier'][callee.object.name=/^[A-Z]/]",
          message: "Model queries belong in the module's data-access file (*.data.ts).",
        },
      ],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['src/platform/config.ts', 'scripts/**', 'test/**', 'bench/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
