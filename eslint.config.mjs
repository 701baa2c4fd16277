import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'cdk.out', '.data', 'coverage', '*.config.js', '*.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // What runs in a function never reaches for what only deploys or runs the stage.
    files: ['lib/**/*.ts', 'functions/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/infra', '**/infra/**', 'aws-cdk-lib', 'aws-cdk-lib/**', 'constructs', 'cdk-nag'],
              message: 'lib/ and functions/ run in Lambda: they must not import infra/ or the CDK.',
            },
          ],
        },
      ],
    },
  },
);
