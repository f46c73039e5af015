/**
 * Module boundaries of ../shared/STYLE.md §2, checked by dependency-cruiser (`npm run lint`).
 * Rules are "forbidden" edges; each names the row of the style guide's boundary table it enforces.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'import cycles make modules impossible to read or test one at a time',
      from: { path: '^(server|shared|ui)/' },
      to: { circular: true },
    },
    {
      name: 'shared-stays-pure',
      severity: 'error',
      comment: 'shared/ is imported by the server and the panels: zod only, no node:*, no server/ or ui/',
      from: { path: '^shared/' },
      to: { path: '^(server|ui)/|^node:', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'server/domain/ is pure logic: no persistence, providers, storage, transport or file system',
      from: { path: '^server/domain/' },
      to: { path: '^server/(db|providers|storage|mcp|routers|assets|catalog|enrichment)/|^node:fs' },
    },
    {
      name: 'db-below-use-cases',
      severity: 'error',
      comment: 'server/db/ knows shared/ and domain/ types, never routers, transport, providers or use cases',
      from: { path: '^server/db/' },
      to: { path: '^server/(routers|mcp|providers|assets|catalog|enrichment)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'ports-import-no-adapter',
      severity: 'error',
      comment: 'a port owns its types; adapters depend on ports, never the other way',
      from: { path: '^server/db/ports/' },
      to: { path: '^server/db/(?!ports/)' },
    },
    {
      name: 'adapters-apart',
      severity: 'error',
      comment: 'the SQLite and PostgreSQL adapters share only ports and backend-neutral db/ modules, never each other',
      from: { path: '^server/db/(sqlite|postgres)/' },
      to: { path: '^server/db/(sqlite|postgres)/', pathNot: '^server/db/$1/' },
    },
    {
      name: 'use-cases-below-transport',
      severity: 'error',
      comment: 'use cases (assets/, catalog/, enrichment/) do not know MCP or the routers',
      from: { path: '^server/(assets|catalog|enrichment)/' },
      to: { path: '^server/(mcp|routers)/' },
    },
    {
      name: 'routers-thin',
      severity: 'error',
      comment: 'routers parse, call one use case and map the result: no SQL, no storage, no transport',
      from: { path: '^server/routers/' },
      to: { path: '^server/(db|storage|mcp)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'mcp-through-routers',
      severity: 'error',
      comment: 'server/mcp/ is transport and registration: it reaches use cases through the routers',
      from: { path: '^server/mcp/' },
      to: { path: '^server/(assets|catalog|enrichment|db)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'ui-apart-from-server',
      severity: 'error',
      comment: 'panels talk to the server only through MCP Apps messages',
      from: { path: '^ui/' },
      to: { path: '^server/' },
    },
    {
      name: 'panels-apart',
      severity: 'error',
      comment: 'a panel imports shared/, ui/lib/ and libraries, never another panel',
      from: { path: '^ui/([^/]+)/', pathNot: '^ui/lib/' },
      to: { path: '^ui/(?!lib/)([^/]+)/', pathNot: '^ui/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.(test|typetest)\\.tsx?$|^server/test-hooks\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs'],
    },
  },
};
