// `npm run test:browser`: the pages in a real browser, apart from `npm test` (they need Chromium).
export default {
  files: ['test/browser/**/*.browser.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  workerThreads: false,
  timeout: '120s',
};
