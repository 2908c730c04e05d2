import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.stratagate/**',
      'bench/out/**',
      'coverage/**',
      'libs/client/dist/**',
      'apps/console/dist/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The domain is pure: no I/O, no clock, no drivers. Time and ids come in with commands.
    files: ['libs/domain/src/**/*.ts'],
    ignores: ['libs/domain/src/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'crypto', 'os'],
              message: 'libs/domain stays I/O-free.',
            },
            {
              group: ['pg', 'kysely', 'fastify', 'kafkajs', '@electric-sql/*'],
              message: 'libs/domain stays I/O-free.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: 'Inject time; do not read the clock in the domain.' },
      ],
    },
  },
  {
    // A route is its schema plus one use-case call: data access belongs to read-model modules.
    files: ['services/*/src/**/*.route.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['kysely', 'pg', '@electric-sql/*', '**/read-model/*', '@stratagate/log'],
              message: 'A route calls a use case; reads and writes happen there.',
            },
          ],
        },
      ],
    },
  },
  prettier,
);
