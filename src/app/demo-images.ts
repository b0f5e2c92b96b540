import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AppMiddleware } from '../kit/http/context.js';
import { AppError, NotFoundError } from '../platform/errors.js';
import { DEMO_IMAGES_PATH, demoImagesDir } from '../../seeds/images/index.js';

/**
 * The demo's pictures (seeds/images/), served by Lectern itself at `GET /demo-images/<file>` on
 * every address, so the seeded catalogue's images (WebLink `imageUrl`, Core `downloadDocument`)
 * load wherever the demo runs: seeds/demo.ts points its documents here, at the platform address.
 * Only the pictures of that folder, by their exact names, are served (nothing else of the disk can
 * be named); they are cacheable for a day, with an ETag to revalidate.
 */

const TYPES: Record<string, string> = { '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg' };
/** What a picture of the folder may be called: no dot files, no separators, one of {@link TYPES}. */
const NAME = /^[a-z0-9][a-z0-9-]*\.(svg|png|jpg)$/;

interface Picture {
  body: Buffer;
  type: string;
  etag: string;
}

/** The pictures, by name; read once (they are a few KB each, and fixed for the life of the process). */
async function readPictures(): Promise<Map<string, Picture>> {
  const pictures = new Map<string, Picture>();
  const dir = demoImagesDir();
  if (!dir) return pictures;
  for (const name of (await fs.readdir(dir)).filter((n) => NAME.test(n)).sort()) {
    const body = await fs.readFile(path.join(dir, name));
    const etag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    pictures.set(name, { body, type: TYPES[path.extname(name)]!, etag });
  }
  return pictures;
}

export function demoImages(): AppMiddleware {
  let pictures: Promise<Map<string, Picture>> | undefined;
  const prefix = `${DEMO_IMAGES_PATH}/`;
  return async (ctx, next) => {
    if (!ctx.path.startsWith(prefix)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new AppError(405, 'method_not_allowed', `${ctx.method} is not supported on ${DEMO_IMAGES_PATH}/ (allowed: GET, HEAD)`);
    }
    // The name as asked, compared whole with the folder's names: `..`, `%2F` or a sub-path never match one.
    const name = ctx.path.slice(prefix.length);
    const picture = (await (pictures ??= readPictures())).get(name);
    if (!picture) throw new NotFoundError(`No demo image named ${JSON.stringify(name)} in ${DEMO_IMAGES_PATH}/`);
    ctx.status = 200;
    ctx.type = picture.type;
    ctx.etag = picture.etag;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.set('X-Content-Type-Options', 'nosniff');
    // A picture is shown by pages of any origin (a training company's website), and an SVG opened
    // on its own runs nothing.
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = picture.body;
  };
}
