import { build } from 'esbuild';
import { bundlingSettings } from '../../cdk/bundling.ts';

/**
 * An entry bundled as the CDK stack bundles it (cdk/bundling.ts), kept in memory: its code, and the
 * bytes it holds of each part, packages by name (`aws-jwt-verify`) and our modules by folder (`lib/auth`).
 * The bundle tests and the bench's cold-start section build with it.
 */
export async function bundleAsDeployed(entryPoint: string, outfile = 'bundles/index.mjs') {
  const { externalModules, banner, mainFields, ...settings } = bundlingSettings;
  const { outputFiles, metafile } = await build({
    ...settings,
    mainFields: [...mainFields],
    banner: { js: banner },
    external: [...externalModules],
    bundle: true,
    entryPoints: [entryPoint],
    outfile,
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const code = outputFiles.find((file) => file.path.endsWith('.mjs'));
  if (!code) throw new Error(`esbuild wrote no bundle of ${entryPoint}`);
  const parts = new Map<string, number>();
  const inputs = Object.values(metafile.outputs).find((output) => output.entryPoint)?.inputs ?? {};
  for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
    const part = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.replace(/\/[^/]*$/, '');
    parts.set(part, (parts.get(part) ?? 0) + bytesInOutput);
  }
  return { code, parts };
}
