import type { AppMiddleware } from '../kit/http/context.js';

/**
 * `GET /favicon.ico` on every address: Lectern's icon (a small SVG), so a browser opening a page
 * gets an icon instead of a 404 (which `npm start` logged for every page a newcomer opened).
 */
const ICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f3a8a"/>' +
    '<path d="M10 7h4v14h8v4H10z" fill="#fff"/></svg>',
);

export function favicon(): AppMiddleware {
  return async (ctx, next) => {
    if (ctx.path !== '/favicon.ico' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.set('Cache-Control', 'public, max-age=604800');
    ctx.type = 'image/svg+xml';
    ctx.body = ICON;
  };
}
