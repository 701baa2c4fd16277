/**
 * Import arrows point one way: functions → domain → storage (docs in /shared/architecture.md's terms).
 * Run by `npm run lint`. Type-only imports count: a circle of types is still a circle.
 */
const DOMAINS =
  '(companies|legal-entities|lookalikes|lists|updates|import|tokens|idempotency|docs|health|http)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import circles. Types shared by both sides of a seam live in a small module of their own, never in the module that imports the implementations.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-circular',
      severity: 'error',
      comment:
        'Folders of lib/ import one way (issue 35, item 5): no circle of folders, though every file circle is ' +
        'broken already. What two folders share moves to the lower one or to a small folder below both ' +
        '(lib/derivation holds the derivation contract, lib/companies/normalise.ts the name forms, lib/plans ' +
        'the plan tiers); a call up is turned around (events take the announcement the import wires in). ' +
        "Folder scope counts a folder's subfolders' imports as its own; an import into another folder's " +
        'subfolder leads to that subfolder.',
      scope: 'folder',
      from: { path: '^lib/' },
      to: { path: '^lib/', circular: true },
    },
    {
      name: 'storage-imports-no-domain',
      severity: 'error',
      comment: 'Storage is the bottom layer: it answers in its own types and imports no domain folder.',
      from: { path: '^lib/storage/' },
      to: { path: `^lib/${DOMAINS}/` },
    },
    {
      name: 'tokens-import-no-http',
      severity: 'error',
      comment: 'Tokens are domain; lib/http is the adapter that may import them, never the reverse.',
      from: { path: '^lib/tokens/' },
      to: { path: '^lib/http/' },
    },
    {
      name: 'errors-and-config-import-nothing',
      severity: 'error',
      comment: 'lib/errors.ts and lib/config.ts sit under every domain: they import nothing of lib/.',
      from: { path: '^lib/(errors|config)\\.ts$' },
      to: { path: '^lib/' },
    },
    {
      name: 'lib-imports-no-infra',
      severity: 'error',
      comment:
        'lib/ and functions/ run in Lambda: they never import infra/ (ESLint also holds this, with the CDK).',
      from: { path: '^(lib|functions)/' },
      to: { path: '^infra/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
