import { mkdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { bundlingSettings } from '../cdk/bundling.ts';

/**
 * Bundles an entry exactly as the CDK stack does (cdk/bundling.ts: ESM, node24, minified, source map,
 * module-first main fields, the require shim, the AWS SDK bundled), to `<outDir>/index.mjs` as
 * NodejsFunction names an ESM bundle.
 */

export interface BundleFigures {
  /** The bundle Lambda loads (index.mjs); the source map beside it is not loaded. */
  file: string;
  bytes: number;
  gzipBytes: number;
  /** Bytes in the bundle per package (or per first-party directory), largest first. */
  byPackage: { name: string; bytes: number }[];
}

export async function bundle(entryPoint: string, outDir: string): Promise<BundleFigures> {
  await mkdir(outDir, { recursive: true });
  const file = `${outDir}/index.mjs`;
  const { externalModules, banner, mainFields, ...settings } = bundlingSettings;
  const result = await build({
    ...settings,
    mainFields: [...mainFields],
    banner: { js: banner },
    external: [...externalModules],
    bundle: true,
    entryPoints: [entryPoint],
    outfile: file,
    metafile: true,
    logLevel: 'error',
  });
  const code = await readFile(file);
  return {
    file,
    bytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    byPackage: bytesByPackage(result.metafile, file),
  };
}

/** `node_modules/@aws-sdk/core/...` → `@aws-sdk/core`; our own files → their directory (`lib/auth`). */
function packageOf(input: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (match) return match[1] as string;
  return input.split('/').slice(0, -1).join('/') || input;
}

function bytesByPackage(metafile: Metafile, file: string): { name: string; bytes: number }[] {
  const output = Object.entries(metafile.outputs).find(([path]) => file.endsWith(path))?.[1];
  const totals = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(input);
    totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
  }
  return [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** What a bundle holds beyond the floor's bundle, per package: where to look when it is too large. */
export function beyondFloor(
  figures: BundleFigures,
  floor: BundleFigures,
  top = 6,
): { name: string; bytes: number }[] {
  const inFloor = new Map(floor.byPackage.map(({ name, bytes }) => [name, bytes]));
  return figures.byPackage
    .map(({ name, bytes }) => ({ name, bytes: bytes - (inFloor.get(name) ?? 0) }))
    .filter(({ bytes }) => bytes > 512)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
}
