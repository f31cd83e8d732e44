/**
 * The layers of events-mirror as rules a tool checks (README → Architecture is their prose twin).
 * `npm run lint:layers` fails with the rule's name when an import crosses a line drawn here.
 */
const layer = (name) => `^src/${name}/`;
const SHARED =
  '^src/(config|deadline|errors|json-text|jsonb-numbers|listen|logger|scope|terminal-lines|time|shutdown-signals|utf8-text|wasm-modules)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'events-model-depends-on-nothing',
      comment: 'The event model (types and validation) is shared by the client, the emulator and the warehouse, so it may use no layer.',
      severity: 'error',
      from: { path: layer('events') },
      to: { path: '^src/(api|sync|warehouse|queue|emulator|commands|report|demo|receiver)/|^src/(config|logger|program|cli)\\.ts$' },
    },
    {
      name: 'shared-modules-know-no-layer',
      comment: 'config, errors, logger, scope and time are used by every layer; importing a layer from them would tie all layers together.',
      severity: 'error',
      from: { path: SHARED },
      to: { path: '^src/(api|sync|warehouse|queue|emulator|commands|report|demo|events|receiver)/' },
    },
    {
      name: 'api-knows-no-storage-or-orchestration',
      comment: 'The API client speaks HTTP only: it must not know where events are stored, how they are synced or queued.',
      severity: 'error',
      from: { path: layer('api') },
      to: { path: '^src/(warehouse|sync|queue|emulator|commands|report|demo|receiver)/' },
    },
    {
      name: 'warehouse-knows-no-http-or-orchestration',
      comment: 'Storage knows events, not HTTP, sync runs or queues: the warehouse must stay usable by any entry point.',
      severity: 'error',
      from: { path: layer('warehouse') },
      to: { path: '^src/(api|sync|queue|emulator|commands|report|demo|receiver)/' },
    },
    {
      name: 'sync-knows-no-queue-or-commands',
      comment: 'One job handler serves sync --once, backfill and the worker; the queue is only transport, commands only wiring.',
      severity: 'error',
      from: { path: layer('sync') },
      to: { path: '^src/(queue|commands|emulator|report|demo|receiver)/|^src/(program|cli)\\.ts$' },
    },
    {
      name: 'emulator-stands-alone',
      comment: 'The emulator is an independent implementation of the API: it may share only pure Digest maths and the event model.',
      severity: 'error',
      from: { path: layer('emulator') },
      to: { path: '^src/(sync|warehouse|queue|commands|report|demo|receiver)/|^src/api/(?!digest\\.ts$)' },
    },
    {
      name: 'queue-knows-no-commands',
      comment: 'Queue code is transport for the sync layer; command wiring sits above it.',
      severity: 'error',
      from: { path: layer('queue') },
      to: { path: '^src/(commands|emulator|report|demo|receiver)/|^src/(program|cli)\\.ts$' },
    },
    {
      name: 'receiver-stores-never-pulls',
      comment:
        'The push receiver maps what the export sends and writes it to the warehouse; it never calls the API, syncs, queues or reports. It shares only the probe and metrics server with the queue processes.',
      severity: 'error',
      from: { path: layer('receiver') },
      to: { path: '^src/(api|sync|emulator|commands|report|demo)/|^src/queue/(?!health-server\\.ts$)|^src/(program|cli)\\.ts$' },
    },
    {
      name: 'report-reads-never-drives',
      comment: 'Reports read the warehouse and format results; they never call the API, the queue or commands.',
      severity: 'error',
      from: { path: layer('report') },
      to: { path: '^src/(api|queue|commands|emulator|demo|receiver)/' },
    },
    {
      name: 'src-never-imports-tests',
      comment: 'Shipped code must not depend on test helpers or fixtures.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^test/' },
    },
    {
      name: 'src-uses-no-dev-dependency',
      comment: 'A devDependency is absent in a production install; shipped code that needs a package must list it in dependencies.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
    {
      name: 'no-circular',
      comment: 'An import cycle makes load order matter and hides which module owns what.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing fails at run time.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
