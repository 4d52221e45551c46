/**
 * An EC2 instance type's CPU architecture, which picks the member's AMI and bundle. Graviton
 * families carry a `g` right after their generation (m7g, c7gd, r6gn, im4gn, is4gen, g5g, t4g),
 * and a1 is the first Graviton; every other family is x86_64.
 */
export type Architecture = 'x86_64' | 'arm64';

export function instanceArchitecture(instanceType: string): Architecture {
  const family = instanceType.split('.')[0] ?? '';
  return family === 'a1' || /^[a-z]+\d+g/.test(family) ? 'arm64' : 'x86_64';
}

/** The bundle's name for an architecture (`npm run bundle -- --arch x64|arm64`). */
export function bundleArch(arch: Architecture): 'x64' | 'arm64' {
  return arch === 'arm64' ? 'arm64' : 'x64';
}
