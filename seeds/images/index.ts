import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The demo's pictures: the SVG files of this folder, one per course and learning path of the
 * demo catalogue (seeds/demo.ts). Lectern serves them itself (src/app/demo-images.ts) at
 * {@link DEMO_IMAGES_PATH}, so the demo's documents are addresses that load wherever it runs.
 */
export const DEMO_IMAGES_PATH = '/demo-images';

/** The address of a demo picture under a base address (`http://localhost:3000`). */
export const demoImageUrl = (base: string, file: string): string => `${base}${DEMO_IMAGES_PATH}/${file}`;

/**
 * Where the files are: this folder when run from the sources (tsx), the repository's when built
 * (dist/seeds/images/ holds only the compiled index). The first that exists is used.
 */
export const DEMO_IMAGES_DIRS = [import.meta.dirname, path.resolve(import.meta.dirname, '../../../seeds/images')];

/**
 * The folder of {@link DEMO_IMAGES_DIRS} that holds the pictures: built, dist/seeds/images/ exists
 * too but holds only the compiled index, so a folder counts only when it has pictures.
 */
export function demoImagesDir(dirs: readonly string[] = DEMO_IMAGES_DIRS): string | undefined {
  return dirs.find((d) => existsSync(d) && readdirSync(d).some((f) => f.endsWith('.svg')));
}

/** The pictures there are (`first-aid.svg`...). */
export function demoPictureFiles(): Set<string> {
  const dir = demoImagesDir();
  return new Set(dir ? readdirSync(dir).filter((f) => f.endsWith('.svg')) : []);
}
