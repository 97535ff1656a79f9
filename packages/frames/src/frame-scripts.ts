/**
 * Bundles the frames' browser code (`src/browser/*-frame.ts`, with @hpke/core and @noble/*)
 * with esbuild into one script per frame. Keyhold does this once at server start rather than
 * at package build time: the code served is built from the sources that ship in the package,
 * the same whether the server runs from `dist` or from TypeScript (as the tests do), and there
 * is no build artifact to go stale. It costs esbuild as a dependency and a few hundred
 * milliseconds at start.
 * @module
 */
import { fileURLToPath } from 'node:url';

/** The minified script of each frame. */
export interface FrameScripts {
  readonly export: string;
  readonly import: string;
}

/** Where the browser sources are, from `src/` or `dist/` alike. */
const BROWSER_SOURCES = new URL('../src/browser/', import.meta.url);

/**
 * Bundles both frames' scripts (minified IIFEs for modern browsers).
 * @example
 * const scripts = await bundleFrameScripts();
 * const keyhold = await createKeyhold({ frames: { scripts, allowedOrigins: ['https://app.example.com'] } });
 */
export async function bundleFrameScripts(): Promise<FrameScripts> {
  // Loaded here so that importing this package for its types or pages costs no esbuild.
  const { build } = await import('esbuild');
  const bundle = async (entry: string): Promise<string> => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL(entry, BROWSER_SOURCES))],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      logLevel: 'silent',
    });
    const output = result.outputFiles[0];
    if (!output) throw new Error(`esbuild produced nothing for ${entry}`);
    return output.text;
  };
  const [exportScript, importScript] = await Promise.all([
    bundle('export-frame.ts'),
    bundle('import-frame.ts'),
  ]);
  return { export: exportScript, import: importScript };
}
