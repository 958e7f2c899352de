import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'clients/typescript/dist/**', 'node_modules/**', 'coverage/**', '.data/**', '.bench-data/**', 'examples/**', 'scripts/**', 'jest.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // The layout's one rule: app/ assembles the house; transports (http/, web/, rest-adapter/, schema/,
    // subscriptions/) call the domain in src/; the domain calls entities/. Nothing imports a floor above it.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/app/*', '**/app/**', '**/http/*', '**/web/*', '**/web/**', '**/rest-adapter/*', '**/schema/*', '**/subscriptions/*'],
              message: 'src/ is the domain: it imports neither app/ nor a transport (app/ wires them). See docs/architecture.md.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['entities/**/*.ts', 'http/**/*.ts', 'web/**/*.ts', 'rest-adapter/**/*.ts', 'schema/**/*.ts', 'subscriptions/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/app/*', '**/app/**'], message: 'Only app/ assembles the house: take the services you need as parameters. See docs/architecture.md.' }] },
      ],
    },
  },
);
