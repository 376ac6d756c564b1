// The dashboard's build (ADR 0038): Preact through Vite's own JSX transform, no plugin; the output goes to
// dist/, which the gateway serves under /dashboard/. `npm run dashboard:dev` serves the sources with the
// API of a platform already running on port 3000 (or MM_DASHBOARD_API) behind the same origin.
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The page's Content-Security-Policy allows no inline script: no preload polyfill, which Vite would inline.
    modulePreload: { polyfill: false },
    // Small images and fonts stay files, not data: URLs.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: {
    proxy: { '/v0.13': process.env.MM_DASHBOARD_API ?? 'http://127.0.0.1:3000' },
  },
});
