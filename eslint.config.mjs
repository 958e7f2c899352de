import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'clients/typescript/dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'examples/**', 'scripts/**', 'jest.config.js'] },
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
    // The layout's one rule: transports (http/, web/, rest-adapter/, schema/, subscriptions/) depend on the
    // domain in src/, never the other way. Only the composition roots wire transports to the domain.
    files: ['src/**/*.ts'],
    ignores: [
      'src/main.ts', // composition root of the server process
      'src/container.ts', // composition root: builds the schema's resolvers and the subscription hub
      'src/schema-emit.ts', // composition root of `npm run schema:emit`
      'src/**/*.test.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/http/*', '**/web/*', '**/web/**', '**/rest-adapter/*', '**/schema/*', '**/subscriptions/*'],
              message: 'src/ is the domain: it does not import transports (only src/main.ts and src/container.ts wire them). See docs/architecture.md.',
            },
          ],
        },
      ],
    },
  },
);
