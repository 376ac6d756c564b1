// The dashboard (issue 22, ADR 0038): the single-page app Vite builds into apps/dashboard/dist, served by
// whichever process is the public entry (the platform in `npm start`, the gateway in distributed mode) under
// /dashboard/, beside the API it calls on the same origin. The page holds credentials, so every answer under
// /dashboard carries headers that keep it from being framed, from loading anything but its own files, and
// from telling another site where it was.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyStatic from '@fastify/static';
import { serveOperatorSignIn } from './dashboard-sign-in';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const DASHBOARD_PATH = '/dashboard/';

/** The app's sources and its build, from the repository root (the image's /app). */
const APP_ROOT = resolve(__dirname, '..', '..', '..', '..', 'apps', 'dashboard');
export const DASHBOARD_DIST = join(APP_ROOT, 'dist');

/**
 * Scripts, styles, images and requests from this origin only, nothing inline, no plugin, no <base>, no
 * form posted anywhere (the page's forms are handled by its script), and no page of another origin may
 * frame it. Pico's form controls draw their marks with data: SVG images.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

/** Whether the build is there, and whether a source changed after it (a developer's tree). */
export function dashboardBuild(): { built: boolean; stale: boolean } {
  const index = join(DASHBOARD_DIST, 'index.html');
  if (!existsSync(index)) return { built: false, stale: false };
  const builtAt = statSync(index).mtimeMs;
  const sources = join(APP_ROOT, 'src');
  const newer = (dir: string): boolean =>
    existsSync(dir) &&
    readdirSync(dir, { withFileTypes: true }).some((e) =>
      e.isDirectory() ? newer(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs > builtAt,
    );
  return { built: true, stale: newer(sources) || statSync(join(APP_ROOT, 'index.html')).mtimeMs > builtAt };
}

/** The banner's line, the same in both modes. */
export function dashboardLine(url: string): string {
  const { built, stale } = dashboardBuild();
  if (!built) return '  Dashboard    not built: run npm run dashboard:build, then start again';
  return `  Dashboard    ${url}${DASHBOARD_PATH}${stale ? '   (built before its sources last changed: npm run dashboard:build)' : ''}`;
}

/** Serves the build under /dashboard/; without one, says how to make it. Before the application listens. */
export async function serveDashboard(app: NestFastifyApplication): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  await fastify.register(async (scope) => {
    scope.addHook('onRequest', async (_request: FastifyRequest, reply: FastifyReply) => {
      void reply.headers(SECURITY_HEADERS);
    });
    scope.get('/dashboard', (_request, reply) => reply.redirect(DASHBOARD_PATH, 308));
    await serveOperatorSignIn(scope, app);
    if (!existsSync(join(DASHBOARD_DIST, 'index.html'))) {
      scope.get('/dashboard/*', (_request, reply) =>
        reply
          .code(503)
          .header('cache-control', 'no-store')
          .type('text/plain; charset=utf-8')
          .send('The dashboard has not been built: run npm run dashboard:build, then start the platform again.\n'),
      );
      return;
    }
    await scope.register(fastifyStatic, {
      root: DASHBOARD_DIST,
      prefix: DASHBOARD_PATH,
      decorateReply: false,
      index: ['index.html'],
      cacheControl: false,
      // File names under assets/ carry a hash of their content: kept for a year. The page itself is read
      // again every time, so a new build is seen at once.
      setHeaders: (res, path) => {
        res.setHeader(
          'cache-control',
          path.includes(`${join('dist', 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-store',
        );
      },
    });
  });
}
