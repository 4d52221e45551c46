/** sha256 (hex) over binding.gyp and native/** of the package at `root`. */
export function addonSourcesHash(root: string): string;
