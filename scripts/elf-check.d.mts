export const AL2023_LIMITS: Record<'GLIBC' | 'GLIBCXX' | 'CXXABI' | 'GCC', number[]>;
/** Every versioned symbol reference in `objdump -T` of `file`, as `LIB_x.y`, sorted and unique. */
export function symbolVersions(file: string): string[];
/** The symbol versions a shared object needs that Amazon Linux 2023 does not have. */
export function tooNew(file: string): string[];
/** The newest GLIBC_x.y `file` needs, for the manifest. */
export function glibcNeeded(file: string): string;
/** The architecture (x64, arm64, or `machine N`) in the ELF header of `file`. */
export function elfArch(file: string): string;
